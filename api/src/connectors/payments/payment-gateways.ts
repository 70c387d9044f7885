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
  /** Names a payment method may ask for that another gateway serves here (new sales only). */
  private readonly aliased = new Map<string, PaymentAdapter>();

  constructor(
    readonly primary: PaymentAdapter,
    others: PaymentAdapter[] = [],
    /** A method's gateway name served by another gateway of this process, e.g. waafipay -> sandbox. */
    aliases: Record<string, string> = {},
  ) {
    for (const gateway of [primary, ...others]) if (!this.byName.has(gateway.name)) this.byName.set(gateway.name, gateway);
    for (const [alias, name] of Object.entries(aliases)) {
      const target = this.byName.get(name);
      if (target && !this.byName.has(alias)) this.aliased.set(alias, target);
    }
  }

  /** Every gateway a process knows, from one adapter (a test's) or the registry itself. */
  static from(payment: PaymentAdapter | PaymentGateways): PaymentGateways {
    return payment instanceof PaymentGateways ? payment : new PaymentGateways(payment);
  }

  /**
   * The gateway of a sale. Before its payment is asked for (`payment_state` none), the name is the
   * one its payment method asks for (`waafipay` is the stand-in while no real WaafiPay is
   * configured: the aliases); after, it is the name of the gateway that was asked, matched exactly,
   * so a process configured differently never asks another gateway about a payment it never had.
   * No name: the primary.
   */
  of(sale: { payment_adapter?: string | null; payment_state?: string | null; mode?: string | null }): PaymentAdapter | undefined {
    // A test key's sale is the sandbox's whatever its row names: never a live gateway (docs/api-conventions.md, "Test mode").
    if (sale.mode === 'test') return this.byName.get('sandbox');
    if (!sale.payment_adapter) return this.primary;
    const requested = !sale.payment_state || sale.payment_state === 'none';
    return this.byName.get(sale.payment_adapter) ?? (requested ? this.aliased.get(sale.payment_adapter) : undefined);
  }

  /** Every gateway, once each (the connectors list). */
  all(): PaymentAdapter[] {
    return [...this.byName.values()];
  }

  names(): string[] {
    return [...this.byName.keys(), ...[...this.aliased.keys()].map((alias) => `${alias} (new sales: ${this.aliased.get(alias)!.name})`)];
  }
}

/** What a sale whose gateway is not configured here says (the review queue shows it). */
export const unknownGatewayReason = (name: string | null | undefined) =>
  `The payment gateway "${name}" that took this sale's payment is not configured in this process: configure it again to settle the sale.`;
