import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';
import { Webhook } from 'standardwebhooks';

/**
 * A webhook receiver for the tests, on loopback: it checks every request as an integrator would,
 * with the standardwebhooks package's Webhook(secret).verify(body, headers) for each secret it
 * knows, never with the product's signer.
 */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The index (in `secrets()`) of the first secret that verified it; -1: none did. */
  verifiedBy: number;
  /** What verify() answered (the parsed payload), for the first secret that verified. */
  payload: { type: string; timestamp: string; data: Record<string, unknown> } | null;
}

export interface ReceiverOptions {
  /** The secrets the receiver holds now. */
  secrets: () => string[];
  /** The status answered to its n-th request (1-based), or 'hang' (never answers). */
  answer?: (n: number) => number | 'hang';
  /**
   * The receiver's clock when the dispatcher's is moved (the retry schedule): verify() checks the
   * timestamp against Date.now(), so it runs as of this time. Default: the real clock.
   */
  clock?: () => number;
}

function verifyAt(secret: string, body: string, headers: Record<string, string>, clock?: () => number) {
  if (!clock) return new Webhook(secret).verify(body, headers);
  vi.useFakeTimers({ toFake: ['Date'], now: clock() });
  try {
    return new Webhook(secret).verify(body, headers);
  } finally {
    vi.useRealTimers();
  }
}

export async function webhookReceiver(opts: ReceiverOptions) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      let verifiedBy = -1;
      let payload: Received['payload'] = null;
      opts.secrets().forEach((secret, i) => {
        if (verifiedBy !== -1) return;
        try {
          payload = verifyAt(secret, body, headers, opts.clock) as Received['payload'];
          verifiedBy = i;
        } catch {
          // Not this secret.
        }
      });
      received.push({ id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'], body, verifiedBy, payload });
      const a = (opts.answer ?? (() => 200))(received.length);
      if (a === 'hang') return;
      res.writeHead(a, { 'content-type': 'text/plain' }).end(a < 300 ? 'ok' : `no (${a})`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    received,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
