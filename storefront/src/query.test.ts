import { describe, expect, it, vi } from 'vitest';
import { RETRIES, RETRY_DELAY_MS, withRetries } from './query';

/** docs/product.md section 9: 3 retries 1 s apart when online, none offline; a 4xx is an answer, not a failure to retry. */
describe('the dealer queries retry rules', () => {
  it('retries a failed call 3 times, 1 s apart, while online', async () => {
    const delays: number[] = [];
    const fn = vi.fn().mockRejectedValueOnce(new Error('net')).mockRejectedValueOnce(new Error('net')).mockResolvedValue('ok');
    await expect(
      withRetries(
        fn,
        () => true,
        async (ms) => void delays.push(ms),
      ),
    ).resolves.toBe('ok');
    expect(fn).toHaveBeenCalledTimes(3);
    expect(delays).toEqual([RETRY_DELAY_MS, RETRY_DELAY_MS]);
  });

  it('gives up after the 3rd retry', async () => {
    const fn = vi.fn().mockRejectedValue(new Error('down'));
    await expect(
      withRetries(
        fn,
        () => true,
        async () => undefined,
      ),
    ).rejects.toThrow('down');
    expect(fn).toHaveBeenCalledTimes(1 + RETRIES);
  });

  it('never retries offline, nor a 404 or 422', async () => {
    const offline = vi.fn().mockRejectedValue(new Error('offline'));
    await expect(
      withRetries(
        offline,
        () => false,
        async () => undefined,
      ),
    ).rejects.toThrow('offline');
    expect(offline).toHaveBeenCalledTimes(1);
    const notFound = vi.fn().mockRejectedValue(Object.assign(new Error('gone'), { status: 404 }));
    await expect(
      withRetries(
        notFound,
        () => true,
        async () => undefined,
      ),
    ).rejects.toThrow('gone');
    expect(notFound).toHaveBeenCalledTimes(1);
  });
});
