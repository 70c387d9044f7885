import { describe, expect, it, vi } from 'vitest';
import { PurchaseSubmitter } from './purchase';

const input = { bundle_id: 7, phone: '615123456', payer_phone: '617000001', payment_method_id: 2 };

/** A purchase is never sent twice: a double tap joins the call in flight; a retry reuses the key. */
describe('idempotent submit', () => {
  it('a double tap sends one request', async () => {
    let resolve!: (v: string) => void;
    const send = vi.fn(() => new Promise<string>((r) => (resolve = r)));
    const s = new PurchaseSubmitter(send);
    const a = s.submit(input);
    const b = s.submit(input);
    resolve('recharge-1');
    await expect(Promise.all([a, b])).resolves.toEqual(['recharge-1', 'recharge-1']);
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('a retry after a dropped connection sends the same key; another purchase a new one', async () => {
    const keys: string[] = [];
    const send = vi.fn(async (body: { idempotency_key: string }) => {
      keys.push(body.idempotency_key);
      if (keys.length === 1) throw new Error('network');
      return 'ok';
    });
    const s = new PurchaseSubmitter(send);
    await expect(s.submit(input)).rejects.toThrow('network');
    await expect(s.submit(input)).resolves.toBe('ok');
    expect(keys[0]).toBe(keys[1]);
    s.done();
    await s.submit(input);
    await s.submit({ ...input, phone: '615999000' });
    expect(new Set(keys).size).toBe(3);
    expect(keys[0]).toMatch(/^sf-[0-9a-f-]{20,}$/);
  });
});
