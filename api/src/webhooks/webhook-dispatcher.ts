import crypto from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Knex } from 'knex';
import { isLoopbackHost, WEBHOOK_RETRY_SCHEDULE_SECONDS } from '@app/contracts';
import { toDbTime, fromDbTime } from '../database/time.ts';
import { rootKnex } from '../database/unit-of-work.ts';
import { serviceLog } from '../platform/logger.ts';
import { openSecret } from '../settings/secret-box.ts';
import { signatureHeader } from './webhook-events.ts';
import { disableGone, GONE_ANSWER, tellDealerGone } from './webhook-gone.ts';
import { PollingLoop } from '../platform/polling-loop.ts';

/**
 * Delivers the webhook outbox (docs/api-conventions.md, "Webhooks"), at least once, as Standard
 * Webhooks 1.0 says: a due event is claimed with a lease (a conditional UPDATE, so two processes
 * never send the same attempt), POSTed with webhook-id, webhook-timestamp and webhook-signature,
 * and its answer recorded. A 2xx within the timeout is delivered; 410 Gone disables the endpoint
 * (webhook-gone.ts: what waits is failed, the dealer is emailed); anything else (no answer, a
 * refused connection, any other status) is tried again on the schedule
 * (WEBHOOK_RETRY_SCHEDULE_SECONDS, with a little jitter), then failed (the console's "resend"
 * tries once more). A crash between the POST and the record resends after the lease: receivers
 * dedupe on webhook-id.
 *
 * It never slows a sale: it runs beside the API with a few deliveries at a time and at most one
 * per dealer, so one slow or dead receiver holds one slot, never the others' nor a request.
 */
export interface WebhookDispatcherOptions {
  db?: Knex;
  /** Deliveries at once (each to a different dealer). */
  concurrency?: number;
  /** How long a receiver has to answer. */
  timeoutMs?: number;
  /** How often the outbox is looked at when nothing wakes the dispatcher. */
  pollMs?: number;
  /** How long a claim holds before another process may take the event. */
  leaseMs?: number;
  /** Receivers on this machine's loopback are allowed (development; WEBHOOK_ALLOW_LOOPBACK). */
  allowLoopback?: boolean;
  /** The wait after the n-th failed attempt (1-based), before jitter; null: no more attempts. Tests shorten it. */
  retryDelayMs?: (attempt: number) => number | null;
  /** The clock (tests move it). */
  now?: () => number;
  /** Told when a receiver answered 410 Gone and its endpoint was disabled (webhook-gone.ts emails the dealer). */
  onGone?: (dealerId: number) => Promise<void>;
}

/** Standard Webhooks: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h after the failures before, then no more. */
export const defaultRetryDelayMs = (attempt: number): number | null => {
  const seconds = WEBHOOK_RETRY_SCHEDULE_SECONDS[attempt - 1];
  return seconds === undefined ? null : seconds * 1_000;
};

const ANSWER_LIMIT = 500;

/** Addresses a webhook may not reach: private, link-local, loopback, unspecified, multicast, CGNAT, benchmarking, IPv4 in IPv6. */
const forbidden = new net.BlockList();
for (const [address, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  forbidden.addSubnet(address, bits, 'ipv4');
for (const [address, bits] of [
  // IPv4-compatible IPv6 (::a.b.c.d, deprecated), :: and ::1 included: [::127.0.0.1] is loopback to some stacks.
  ['::', 96],
  // IPv4 written as IPv6 (NAT64, 6to4) could reach any IPv4 address, private ones included.
  ['64:ff9b::', 96],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  forbidden.addSubnet(address, bits, 'ipv6');

const ipv4Mapped = new net.BlockList();
ipv4Mapped.addSubnet('::ffff:0:0', 96, 'ipv6');

/** Whether a resolved address is one a public receiver may have. */
export function publicAddress(address: string): boolean {
  const mapped = address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
  if (!net.isIP(mapped)) return false;
  // IPv4-mapped IPv6 in hex (::ffff:7f00:1) hides its IPv4 address: refused. (Not in `forbidden`,
  // whose ::ffff:0:0/96 rule would match every IPv4 address.)
  if (net.isIPv6(mapped)) return !forbidden.check(mapped, 'ipv6') && !ipv4Mapped.check(mapped, 'ipv6');
  return !forbidden.check(mapped, 'ipv4');
}

/**
 * What a URL's host is: this machine's loopback as a development receiver names it (127.0.0.0/8,
 * ::1, localhost), a public or a private address written as such (no DNS is asked for those), or a
 * name to resolve.
 */
export function hostKind(hostname: string): 'loopback' | 'public' | 'private' | 'name' {
  if (isLoopbackHost(hostname)) return 'loopback';
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (!net.isIP(bare)) return 'name';
  return publicAddress(bare) ? 'public' : 'private';
}

interface EventRow {
  id: number;
  event_id: string;
  dealer_id: number;
  body: string;
  attempts: number;
  created_at: string;
}

interface Outcome {
  ok: boolean;
  statusCode: number | null;
  answer: string;
  /** Not sent: the endpoint is disabled (its events were failed with it). */
  skipped?: boolean;
}

export class WebhookDispatcher {
  private readonly loop = new PollingLoop({ round: () => this.claimAndSend(), pollMs: () => this.opts.pollMs, what: 'webhook dispatch' });
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly opts: Required<Omit<WebhookDispatcherOptions, 'db'>> & { db?: Knex };

  constructor(opts: WebhookDispatcherOptions = {}) {
    this.opts = {
      concurrency: 4,
      timeoutMs: 10_000,
      pollMs: 5_000,
      leaseMs: 60_000,
      allowLoopback: false,
      retryDelayMs: defaultRetryDelayMs,
      now: Date.now,
      onGone: (dealerId: number) => tellDealerGone(this.db, dealerId),
      ...opts,
    };
  }

  private get db(): Knex {
    return this.opts.db ?? rootKnex();
  }

  start(): void {
    this.loop.start();
  }

  /** Stops claiming; deliveries under way finish (their leases cover a crash). */
  async stop(): Promise<void> {
    this.loop.stop();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Something was just committed: look now rather than at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  /** Claims what is due and waits for those sends to finish (tests; a script). */
  async runOnce(): Promise<number> {
    const started = await this.claimAndSend();
    await this.drain();
    return started;
  }

  /** Resolves when no delivery is under way. */
  async drain(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight.values()]);
  }

  /**
   * Claims what is due (free slots only, one event per dealer not already being served) and
   * starts sending it. A finished send looks again, so a slow receiver holds only its own slot.
   */
  private async claimAndSend(): Promise<number> {
    const free = this.opts.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const now = this.opts.now();
    const nowDb = toDbTime(new Date(now));
    const due = (qb: Knex.QueryBuilder) =>
      qb
        .where('status', 'pending')
        .where('next_attempt_at', '<=', nowDb)
        .where((w) => w.whereNull('claimed_until').orWhere('claimed_until', '<', nowDb));
    // The dealers waiting longest first, each once: one dealer's backlog never hides another's event.
    const dealers: { dealer_id: number }[] = await due(this.db('webhook_events'))
      .whereNotIn('dealer_id', [...this.inFlight.keys()])
      .groupBy('dealer_id')
      .orderByRaw('MIN(next_attempt_at)')
      .limit(free)
      .select('dealer_id');
    let started = 0;
    for (const { dealer_id: dealerId } of dealers) {
      const event: EventRow | undefined = await due(this.db('webhook_events'))
        .where('dealer_id', dealerId)
        .orderBy('next_attempt_at')
        .orderBy('id')
        .first('id', 'event_id', 'dealer_id', 'body', 'attempts', 'created_at');
      if (!event || this.inFlight.has(dealerId)) continue;
      const token = crypto.randomBytes(12).toString('hex');
      const claimed = await this.db('webhook_events')
        .where({ id: event.id, status: 'pending' })
        .where((w) => w.whereNull('claimed_until').orWhere('claimed_until', '<', nowDb))
        .update({ claim_token: token, claimed_until: toDbTime(new Date(now + this.opts.leaseMs)) });
      if (claimed !== 1) continue;
      started++;
      const send = this.deliver(event, token)
        .catch((err: unknown) => serviceLog.warn({ err, event: event.event_id }, 'webhook delivery not recorded'))
        .finally(() => {
          this.inFlight.delete(event.dealer_id);
          this.wake();
        });
      this.inFlight.set(event.dealer_id, send);
    }
    return started;
  }

  private async deliver(event: EventRow, token: string): Promise<void> {
    // Before the endpoint is read: a 410 only disables the endpoint as it was then (not one saved again since).
    const readAt = this.opts.now();
    const endpoint = await this.db('webhook_endpoints')
      .where({ dealer_id: event.dealer_id })
      .first('id', 'url', 'secret', 'previous_secret', 'previous_secret_expires_at', 'disabled_at');
    let outcome: Outcome;
    if (!endpoint) outcome = { ok: false, statusCode: null, answer: 'No webhook endpoint is set.' };
    // Disabled after this event was claimed (a 410 to another of its events): not sent.
    else if (endpoint.disabled_at) outcome = { ok: false, statusCode: null, answer: GONE_ANSWER, skipped: true };
    else {
      const secrets = [openSecret(endpoint.secret)];
      const previousUntil = fromDbTime(endpoint.previous_secret_expires_at);
      if (endpoint.previous_secret && previousUntil && Date.parse(previousUntil) > this.opts.now()) secrets.push(openSecret(endpoint.previous_secret));
      if (secrets.some((s) => s === null))
        outcome = { ok: false, statusCode: null, answer: 'The signing secret cannot be read (was APP_KEY changed?): rotate it.' };
      else outcome = await this.post(endpoint.url, event, secrets as string[]);
    }
    await this.record(event, token, outcome);
    if (endpoint && outcome.statusCode === 410 && (await disableGone(this.db, Number(endpoint.id), endpoint.url, this.opts.now(), readAt)))
      await this.opts.onGone?.(event.dealer_id).catch((err: unknown) => serviceLog.warn({ err, dealer: event.dealer_id }, 'webhook disabled: dealer not told'));
  }

  /** One POST: the body as stored, signed for this attempt's timestamp. */
  private post(rawUrl: string, event: EventRow, secrets: string[]): Promise<Outcome> {
    const url = new URL(rawUrl);
    const kind = hostKind(url.hostname);
    if (kind === 'loopback' && !this.opts.allowLoopback)
      return Promise.resolve({ ok: false, statusCode: null, answer: 'Receivers on this machine are not allowed here.' });
    // An address written in the URL is dialled without DNS: it is checked here.
    if (kind === 'private') return Promise.resolve({ ok: false, statusCode: null, answer: `${url.hostname} is not a public address.` });
    const timestamp = Math.floor(this.opts.now() / 1000);
    const body = Buffer.from(event.body, 'utf8');
    // A name is checked after DNS, on every address the connection may dial (no rebinding around it).
    // Node asks for all of them (options.all) when it races IPv4 and IPv6.
    const lookup: net.LookupFunction = (hostname, options, callback) => {
      dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) return callback(err, '', 0);
        const refused = kind === 'loopback' ? undefined : addresses.find((a) => !publicAddress(a.address));
        if (refused) return callback(new Error(`${hostname} resolves to ${refused.address}, not a public address`), '', 0);
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      });
    };
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<Outcome>((resolve) => {
      const req = client.request(
        url,
        {
          method: 'POST',
          lookup,
          timeout: this.opts.timeoutMs,
          headers: {
            'content-type': 'application/json',
            'content-length': body.length,
            'user-agent': 'bundle-reseller-webhooks/1',
            'webhook-id': event.event_id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signatureHeader(secrets, event.event_id, timestamp, event.body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size < ANSWER_LIMIT) chunks.push(chunk);
            size += chunk.length;
          });
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            resolve({ ok: code >= 200 && code < 300, statusCode: code, answer: Buffer.concat(chunks).toString('utf8').slice(0, ANSWER_LIMIT) });
          });
          res.on('error', (err) => resolve({ ok: false, statusCode: res.statusCode ?? null, answer: err.message }));
        },
      );
      // No answer within the timeout: the attempt failed (the receiver may still act: it dedupes on the id).
      const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${this.opts.timeoutMs / 1000} s`)), this.opts.timeoutMs);
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.opts.timeoutMs / 1000} s`)));
      req.on('error', (err) => resolve({ ok: false, statusCode: null, answer: err.message.slice(0, ANSWER_LIMIT) }));
      req.on('close', () => clearTimeout(deadline));
      req.end(body);
    });
  }

  /** The attempt's answer, kept under our claim only (a lease taken over by another process wins). */
  private async record(event: EventRow, token: string, outcome: Outcome): Promise<void> {
    const now = this.opts.now();
    // A 410 is final: the endpoint is disabled (deliver() then fails what waits).
    const attempts = Number(event.attempts) + (outcome.skipped ? 0 : 1);
    const wait = outcome.ok || outcome.skipped || outcome.statusCode === 410 ? null : this.opts.retryDelayMs(attempts);
    // Up to 10% later than the schedule: receivers coming back after an outage are not all hit at once.
    const delay = wait === null ? null : wait * (1 + Math.random() * 0.1);
    const status = outcome.ok ? 'delivered' : delay === null ? 'failed' : 'pending';
    await this.db('webhook_events')
      .where({ id: event.id, claim_token: token })
      .update({
        status,
        attempts,
        last_attempt_at: toDbTime(new Date(now)),
        last_status_code: outcome.statusCode,
        last_answer: outcome.answer.slice(0, ANSWER_LIMIT) || null,
        delivered_at: outcome.ok ? toDbTime(new Date(now)) : null,
        next_attempt_at: delay === null ? null : toDbTime(new Date(now + delay)),
        claim_token: null,
        claimed_until: null,
        updated_at: toDbTime(new Date(now)),
      });
  }
}
