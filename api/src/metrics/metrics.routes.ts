import crypto from 'node:crypto';
import http from 'node:http';
import type { RequestHandler } from 'express';
import { sendError } from '../http/error-handler.ts';
import { unauthorized } from '../http/errors.ts';
import type { ServiceMetrics } from './service-metrics.ts';

/** Equal tokens, compared in constant time (digests of equal length, whatever was sent). */
function sameToken(sent: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(sent).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

/**
 * `/metrics` on the main app. With METRICS_TOKEN set, Prometheus text for a caller sending
 * `Authorization: Bearer <METRICS_TOKEN>`, 401 for anyone else; without it, 404 (the figures are
 * then served only on METRICS_PORT's own listener, if set, or not at all).
 */
export function metricsEndpoint(metrics: ServiceMetrics | null, token: string): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (!metrics || !token) return res.status(404).type('text').send('Not found');
    const header = req.get('authorization') ?? '';
    const sent = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
    if (!sent || !sameToken(sent, token)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      return sendError(req, res, unauthorized());
    }
    try {
      const { contentType, body } = await metrics.text();
      res.setHeader('Cache-Control', 'no-store');
      res.type(contentType).send(body);
    } catch (err) {
      next(err);
    }
  };
}

/**
 * METRICS_PORT: `/metrics` on a listener of its own, without a token, bound to METRICS_HOST
 * (127.0.0.1 unless set): for a scraper on the same host or a private network only.
 */
export function startMetricsListener(metrics: ServiceMetrics, opts: { port: number; host: string }): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    metrics.text().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : body),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics unavailable'),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
