import type { PaymentAdapter } from './payment-adapter.ts';

/**
 * The payment gateways this process can reach, by the name a sale records when it asks for its
 * payment (`recharges.payment_adapter`). A new sale is charged through the primary gateway (the
 * configured one); every later step of that sale (lookups, commit, release, the reconciliation, a
 * refund by hand) goes through the gateway it recorded, so a change of configuration never sends a
 * sale's questions to a gateway that never had its payment. A sale whose gateway this process does
 * not know waits for a person, never for another gateway.
 */
export class PaymentGateways {
  private readonly byName = new Map<string, PaymentAdapter>();

  constructor(
    readonly primary: PaymentAdapter,
    others: PaymentAdapter[] = [],
    /** Older names of a gateway (a name recorded before the gateway was renamed). */
    aliases: Record<string, string> = {},
  ) {
    for (const gateway of [primary, ...others]) if (!this.byName.has(gateway.name)) this.byName.set(gateway.name, gateway);
    for (const [alias, name] of Object.entries(aliases)) {
      const target = this.byName.get(name);
      if (target && !this.byName.has(alias)) this.byName.set(alias, target);
    }
  }

  /** The gateway of a sale: the one it recorded, or for a sale not yet charged, the primary. */
  of(sale: { payment_adapter?: string | null }): PaymentAdapter | undefined {
    return sale.payment_adapter ? this.byName.get(sale.payment_adapter) : this.primary;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}

/** What a sale whose gateway is not configured here says (the review queue shows it). */
export const unknownGatewayReason = (name: string | null | undefined) =>
  `The payment gateway "${name}" that took this sale's payment is not configured in this process: configure it again to settle the sale.`;
