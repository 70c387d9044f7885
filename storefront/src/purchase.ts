/**
 * A purchase is sent with an idempotency key made once per purchase (docs/api-conventions.md, "Storefront calls"): a
 * double tap sends nothing twice, and a retry after a dropped connection sends the same key, so the
 * API answers the first recharge instead of buying again. Changing what is bought makes a new key.
 */
export interface PurchaseInput {
  bundle_id: number;
  phone: string;
  payer_phone: string;
  payment_method_id: number;
}

export function newKey(): string {
  const c = globalThis.crypto;
  if (c?.randomUUID) return `sf-${c.randomUUID()}`;
  const bytes = new Uint8Array(16);
  c.getRandomValues(bytes);
  return `sf-${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export class PurchaseSubmitter<R> {
  private key: string | null = null;
  private signature: string | null = null;
  private inFlight: Promise<R> | null = null;

  constructor(private readonly send: (body: PurchaseInput & { idempotency_key: string }) => Promise<R>) {}

  submit(input: PurchaseInput): Promise<R> {
    const signature = JSON.stringify([input.bundle_id, input.phone, input.payer_phone, input.payment_method_id]);
    if (this.inFlight && signature === this.signature) return this.inFlight;
    if (signature !== this.signature || !this.key) {
      this.key = newKey();
      this.signature = signature;
    }
    const attempt = this.send({ ...input, idempotency_key: this.key });
    this.inFlight = attempt;
    void attempt.then(
      () => this.clear(attempt),
      () => this.clear(attempt),
    );
    return attempt;
  }

  /** The key in use (tests). */
  get currentKey(): string | null {
    return this.key;
  }

  /** After a purchase went through: the next one gets a new key. */
  done(): void {
    this.key = null;
    this.signature = null;
  }

  private clear(attempt: Promise<R>) {
    if (this.inFlight === attempt) this.inFlight = null;
  }
}
