import { modeOf } from '../platform/sale-mode.ts';
import { ensureTestWallet } from '../wallets/test-wallet.ts';
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import {
  formatMinor,
  nationalNumber,
  type BatchPreview,
  type BatchProblem,
  type RechargeBatchDetail,
  type RechargeBatchInput,
  type RechargeBatchLineResponse,
  type RechargeBatchResponse,
  type RechargeStatus,
} from '@app/contracts';
import { AppError, forbidden, notFound } from '../http/errors.ts';
import { decodeId } from '../http/ids.ts';
import { errorCodeOf } from '../http/error-codes.ts';
import { pageParams, type Page } from '../http/list-query.ts';
import { fromDbTime, toDbTime } from '../database/time.ts';
import { isUniqueViolation } from '../database/db-errors.ts';
import { onCommit, unitOfWork } from '../database/unit-of-work.ts';
import { isDealer, type ServiceContext } from '../platform/context.ts';
import { translateMessage } from '../i18n/server-i18n.ts';
import { saleOffer, sellingDealer } from '../recharges/sale-offers.ts';
import { walletOfDealer } from '../wallets/wallet.service.ts';
import type { StorefrontDealerRow } from '../storefront/storefront.service.ts';
import { dealerRef } from '../users/dealer-ref.ts';
import { enqueueWebhookEvent } from '../webhooks/webhook-events.ts';

/**
 * Bulk sales (docs/api-conventions.md, "Bulk sales"): a dealer's batch of lines, stored at once
 * and sold in the background by the processor (recharge-batch-processor.ts), each line through the
 * one sale path. Here: taking a batch (idempotent per Idempotency-Key), its preview (every line
 * checked, nothing sold), and reading batches and their lines, a dealer only its own.
 */
type Db = Knex | Knex.Transaction;

export interface BatchRow {
  id: number;
  reference: string;
  dealer_id: number;
  idempotency_key: string;
  request_hash: string;
  client_reference: string | null;
  /** A test key's batch sells in the sandbox (its lines' sales are test sales). */
  mode?: string | null;
  status: 'queued' | 'running' | 'completed';
  lines_total: number;
  lines_accepted: number;
  lines_refused: number;
  created_by: number | null;
  api_key_id: number | null;
  lease_owner: string | null;
  lease_until: string | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Wakes the processor of this process once a batch is committed (server.ts sets it). */
let wakeProcessor: () => void = () => undefined;
export function onBatchCreated(wake: () => void): void {
  wakeProcessor = wake;
}

const REFERENCE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
/** RB + 10 unambiguous characters, as a sale's RC reference. */
function newBatchReference(): string {
  const bytes = crypto.randomBytes(10);
  return `RB${[...bytes].map((b) => REFERENCE_ALPHABET[b % REFERENCE_ALPHABET.length]).join('')}`;
}

/** Each line's bundle as its id (an h_id and its number are one bundle, so one body). */
const bundleKey = (raw: string | number) => {
  const id = decodeId(raw);
  return id ? String(id) : `?${String(raw).trim()}`;
};

const requestHash = (input: RechargeBatchInput) =>
  crypto
    .createHash('sha256')
    .update(JSON.stringify([input.client_reference ?? null, input.lines.map((l) => [l.phone, bundleKey(l.bundle_id), l.client_reference ?? null])]))
    .digest('hex');

/** The signed-in dealer (or the key's) as its shop sells; staff have no wallet to pay a batch from. */
export async function batchDealer(ctx: ServiceContext): Promise<StorefrontDealerRow> {
  const code = ctx.actor.user?.dealer_code;
  if (!isDealer(ctx.actor) || !code) throw forbidden('api:recharge_batches.dealers_only');
  return sellingDealer(ctx.db, code);
}

/** The line's idempotency key for the sale path: one sale per line, whoever runs it and however often. */
export const lineSaleKey = (batchId: number, lineNo: number) => `rb/${batchId}/${lineNo}`;

/**
 * Stores a batch and its lines in one transaction, under the caller's key (already prefixed by
 * the surface that took it). The same key with the same body answers the first batch
 * (created: false); another body is a 422.
 */
export async function createBatch(
  ctx: ServiceContext,
  input: RechargeBatchInput,
  key: string,
  opts: { apiKeyId?: number | null; base: string },
): Promise<{ created: boolean; batch: RechargeBatchResponse }> {
  const dealer = await batchDealer(ctx);
  const hash = requestHash(input);
  const earlier = async () => {
    const row: BatchRow | undefined = await ctx.db('recharge_batches').where({ dealer_id: dealer.id, idempotency_key: key }).first();
    if (!row) return null;
    if (row.request_hash !== hash)
      throw new AppError(422, 'api:recharge_batches.idempotency_key_reused', { idempotency_key: ['api:recharge_batches.idempotency_key_reused'] });
    return { created: false, batch: (await presentBatches(ctx.db, [row], opts.base))[0] };
  };
  const first = await earlier();
  if (first) return first;
  const now = toDbTime();
  try {
    const id = await unitOfWork(async (trx) => {
      const [inserted] = await trx('recharge_batches').insert({
        reference: newBatchReference(),
        dealer_id: dealer.id,
        idempotency_key: key,
        request_hash: hash,
        client_reference: input.client_reference ?? null,
        mode: ctx.mode ?? 'live',
        status: 'queued',
        lines_total: input.lines.length,
        lines_accepted: 0,
        lines_refused: 0,
        // The user who sent it: the dealer itself (console or its key); the key is kept beside.
        created_by: ctx.actor.id,
        api_key_id: opts.apiKeyId ?? null,
        created_at: now,
        updated_at: now,
      });
      const batchId = typeof inserted === 'object' ? Number((inserted as { id: number }).id) : Number(inserted);
      const lines = input.lines.map((l, i) => ({
        batch_id: batchId,
        line_no: i + 1,
        phone: l.phone,
        bundle_id: String(l.bundle_id),
        client_reference: l.client_reference ?? null,
        status: 'pending',
        created_at: now,
        updated_at: now,
      }));
      // Chunks keep each INSERT under SQLite's bound-parameter limit.
      for (let i = 0; i < lines.length; i += 100) await trx('recharge_batch_lines').insert(lines.slice(i, i + 100));
      onCommit(() => wakeProcessor());
      return batchId;
    }, ctx.db);
    const row: BatchRow = await ctx.db('recharge_batches').where({ id }).first();
    return { created: true, batch: (await presentBatches(ctx.db, [row], opts.base))[0] };
  } catch (err) {
    // Two calls with one key at once: the one that lost answers the winner's batch.
    if (isUniqueViolation(err)) {
      const winner = await earlier();
      if (winner) return winner;
    }
    throw err;
  }
}

const problem = (
  ctx: ServiceContext,
  field: BatchProblem['field'],
  key: string,
  vars: Record<string, unknown> = {},
  level: BatchProblem['level'] = 'error',
): BatchProblem => ({
  field,
  // The code the sale path answers for the same refusal (a line's refusal is recorded under it too).
  code: errorCodeOf(key),
  message: translateMessage(ctx.t, key, vars),
  level,
});

/**
 * Every line checked as the sale path would, nothing written: the number (a Somali mobile number,
 * of the bundle's operator), the bundle (offered by this shop, deliverable), the same number and
 * bundle twice (a warning), and the lines' costs in order against the wallet's balance (the lines
 * it cannot pay are marked).
 */
export async function previewBatch(ctx: ServiceContext, input: RechargeBatchInput): Promise<BatchPreview> {
  const dealer = await batchDealer(ctx);
  // A test key's lines are weighed against its test wallet (made on first use), as its sales will be.
  if (ctx.mode === 'test') await ensureTestWallet(ctx, dealer.id);
  const [offer, wallet] = await Promise.all([saleOffer(ctx.db, dealer), walletOfDealer(ctx.db, dealer.id, ctx.mode ?? 'live')]);
  const balance = Number(wallet?.balance ?? 0);
  const seen = new Map<string, number>();
  let spent = 0;
  let beyond = 0;
  const lines = input.lines.map((line, i) => {
    const lineNo = i + 1;
    const problems: BatchProblem[] = [];
    const phone = nationalNumber(line.phone);
    if (!phone) problems.push(problem(ctx, 'phone', 'validation:phone_somali_invalid'));
    const bundleId = decodeId(line.bundle_id);
    const bundle = bundleId ? offer.bundles.get(bundleId) : undefined;
    if (!bundle)
      problems.push(
        problem(ctx, 'bundle_id', bundleId && offer.undeliverable.has(bundleId) ? 'validation:bundle_not_deliverable' : 'validation:bundle_not_offered'),
      );
    if (bundle && phone && bundle.phone_prefixes.length && !bundle.phone_prefixes.some((p) => phone.startsWith(p)))
      problems.push(problem(ctx, 'phone', 'validation:phone_wrong_operator', { operator: bundle.provider_name, prefixes: bundle.phone_prefixes.join(', ') }));
    const twin = `${phone ?? line.phone}|${bundleKey(line.bundle_id)}`;
    const firstLine = seen.get(twin);
    if (firstLine) problems.push(problem(ctx, 'line', 'validation:batch_line_duplicate', { line: firstLine }, 'warning'));
    else seen.set(twin, lineNo);
    const sellable = !problems.some((p) => p.level === 'error');
    // The sale path's debit: a line the balance left after the lines before it cannot pay is refused.
    if (sellable && bundle && bundle.cost > 0) {
      if (spent + bundle.cost > balance) {
        beyond += 1;
        problems.push(
          problem(ctx, 'payment', 'validation:batch_line_beyond_balance', { balance: formatMinor(Math.max(0, balance - spent)), currency: offer.currency }),
        );
      } else spent += bundle.cost;
    }
    return {
      line_no: lineNo,
      ok: !problems.some((p) => p.level === 'error'),
      phone,
      bundle_name: bundle?.name ?? null,
      cost: bundle ? formatMinor(bundle.cost) : null,
      problems,
    };
  });
  const ok = lines.filter((l) => l.ok).length;
  return {
    lines,
    totals: {
      lines: lines.length,
      ok,
      refused: lines.length - ok,
      warnings: lines.filter((l) => l.problems.some((p) => p.level === 'warning')).length,
      total_cost: formatMinor(spent),
      balance: formatMinor(balance),
      beyond_balance: beyond,
      currency: offer.currency,
    },
  };
}

/** The accepted lines' sales of these batches by state: delivered, failed (or refunded), still in progress. */
export async function saleCounts(db: Db, batchIds: number[]): Promise<Map<number, { delivered: number; failed: number; in_progress: number }>> {
  const counts = new Map(batchIds.map((id) => [id, { delivered: 0, failed: 0, in_progress: 0 }]));
  if (!batchIds.length) return counts;
  const rows: { batch_id: number; status: string; n: number | string }[] = await db('recharge_batch_lines')
    .join('recharges', 'recharges.id', 'recharge_batch_lines.recharge_id')
    .whereIn('recharge_batch_lines.batch_id', batchIds)
    .groupBy('recharge_batch_lines.batch_id', 'recharges.status')
    .select('recharge_batch_lines.batch_id', 'recharges.status')
    .count({ n: '*' });
  for (const r of rows) {
    const c = counts.get(Number(r.batch_id))!;
    const n = Number(r.n);
    if (r.status === 'completed') c.delivered += n;
    else if (r.status === 'failed' || r.status === 'refunded') c.failed += n;
    else c.in_progress += n;
  }
  return counts;
}

type DealerRef = ReturnType<typeof dealerRef>;

async function presentBatches(db: Db, rows: BatchRow[], base: string, dealers?: Map<number, DealerRef>): Promise<RechargeBatchResponse[]> {
  const sales = await saleCounts(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => {
    const total = Number(r.lines_total);
    const accepted = Number(r.lines_accepted);
    const refused = Number(r.lines_refused);
    return {
      id: r.reference,
      client_reference: r.client_reference,
      mode: modeOf(r.mode),
      status: r.status,
      ...(dealers ? { dealer: dealers.get(r.dealer_id) } : {}),
      lines_total: total,
      lines_pending: Math.max(0, total - accepted - refused),
      lines_accepted: accepted,
      lines_refused: refused,
      sales: sales.get(r.id)!,
      progress: total ? Math.floor(((accepted + refused) * 100) / total) : 100,
      lines_url: `${base}/${r.reference}`,
      created_at: fromDbTime(r.created_at),
      started_at: fromDbTime(r.started_at),
      completed_at: fromDbTime(r.completed_at),
    };
  });
}

async function dealerRefs(db: Db, ids: number[]): Promise<Map<number, DealerRef>> {
  const rows: { id: number; name: string; dealer_code: string | null }[] = ids.length
    ? await db('users')
        .whereIn('id', [...new Set(ids)])
        .select('id', 'name', 'dealer_code')
    : [];
  return new Map(rows.map((u) => [u.id, dealerRef(u.id, u.name, u.dealer_code)]));
}

/**
 * Only its own for a dealer (another's is the same 404 as none); staff see every dealer's. A key
 * sees its own mode's only; the console sees both, each marked with its mode.
 */
function scoped(ctx: ServiceContext) {
  const qb = ctx.db('recharge_batches');
  if (isDealer(ctx.actor)) qb.where('recharge_batches.dealer_id', ctx.actor.id!);
  if (ctx.mode) qb.where('recharge_batches.mode', ctx.mode);
  return qb;
}

/** Batches newest first, filtered by status and (staff) dealer. */
export async function listBatches(
  ctx: ServiceContext,
  q: { page?: string; per_page?: string; status?: string; dealer_id?: string },
  opts: { base: string; withDealer: boolean },
): Promise<Page<RechargeBatchResponse>> {
  const { page, perPage } = pageParams({ page: q.page, per_page: q.per_page });
  const qb = scoped(ctx);
  if (q.status) qb.where('recharge_batches.status', q.status);
  if (q.dealer_id && !isDealer(ctx.actor)) qb.where('recharge_batches.dealer_id', decodeId(q.dealer_id) ?? 0);
  const total = Number(((await qb.clone().count({ n: '*' }).first()) as { n: number | string } | undefined)?.n ?? 0);
  const rows: BatchRow[] = await qb
    .orderBy('recharge_batches.id', 'desc')
    .limit(perPage)
    .offset((page - 1) * perPage)
    .select('recharge_batches.*');
  const dealers = opts.withDealer
    ? await dealerRefs(
        ctx.db,
        rows.map((r) => r.dealer_id),
      )
    : undefined;
  return {
    data: await presentBatches(ctx.db, rows, opts.base, dealers),
    meta: { current_page: page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) },
  };
}

interface LineRow {
  line_no: number;
  phone: string;
  bundle_id: string;
  client_reference: string | null;
  status: 'pending' | 'selling' | 'accepted' | 'refused';
  recharge_id: number | null;
  sale_reference: string | null;
  sale_status: RechargeStatus;
  error_code: string | null;
  error_message: string | null;
  error_vars: string | null;
}

function presentLine(ctx: ServiceContext, l: LineRow): RechargeBatchLineResponse {
  return {
    line_no: Number(l.line_no),
    phone: l.phone,
    bundle_id: /^\d{1,15}$/.test(l.bundle_id) ? Number(l.bundle_id) : l.bundle_id,
    client_reference: l.client_reference,
    status: l.status === 'selling' ? 'pending' : l.status,
    recharge: l.recharge_id && l.sale_reference ? { id: Number(l.recharge_id), reference: l.sale_reference, status: l.sale_status } : null,
    error:
      l.status === 'refused' && l.error_code
        ? { code: l.error_code, message: translateMessage(ctx.t, l.error_message ?? 'api:errors.validation', l.error_vars ? JSON.parse(l.error_vars) : {}) }
        : null,
  };
}

/** A batch by its reference (RB…) with one page of its lines, in line order. */
export async function readBatch(
  ctx: ServiceContext,
  reference: string,
  q: { page?: string | number; per_page?: string | number; status?: string },
  opts: { base: string; withDealer: boolean },
): Promise<RechargeBatchDetail> {
  const ref = reference.trim().toUpperCase();
  const row: BatchRow | undefined = /^RB[A-Z0-9]{10}$/.test(ref) ? await scoped(ctx).where('recharge_batches.reference', ref).first() : undefined;
  if (!row) throw notFound('api:recharge_batches.not_found');
  // Checked by the route (listParams: integers, in range); the defaults as every list's.
  const { page, perPage } = pageParams({ page: q.page, per_page: q.per_page });
  const lines = ctx.db('recharge_batch_lines').where('recharge_batch_lines.batch_id', row.id);
  // A line being sold ("selling") is still pending to the caller.
  if (q.status) lines.whereIn('recharge_batch_lines.status', q.status === 'pending' ? ['pending', 'selling'] : [q.status]);
  const total = Number(((await lines.clone().count({ n: '*' }).first()) as { n: number | string } | undefined)?.n ?? 0);
  const rows: LineRow[] = await lines
    .leftJoin('recharges', 'recharges.id', 'recharge_batch_lines.recharge_id')
    .orderBy('recharge_batch_lines.line_no')
    .limit(perPage)
    .offset((page - 1) * perPage)
    .select('recharge_batch_lines.*', 'recharges.reference as sale_reference', 'recharges.status as sale_status');
  const dealers = opts.withDealer ? await dealerRefs(ctx.db, [row.dealer_id]) : undefined;
  const [batch] = await presentBatches(ctx.db, [row], opts.base, dealers);
  return {
    ...batch,
    lines: rows.map((l) => presentLine(ctx, l)),
    lines_meta: { current_page: page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) },
  };
}

export interface Refusal {
  code: string;
  message: string;
  vars: Record<string, unknown>;
}

/** A refusal by its message key, under the code the sale path answers for it. */
export const refusalOf = (message: string, vars: Record<string, unknown> = {}): Refusal => ({ code: errorCodeOf(message), message, vars });

/**
 * Refuses every line still pending (a cancel, a revoked key), with the batch's count, in one
 * transaction. Conditional on the line being pending: a line the processor is selling at that
 * moment is either recorded by it (then skipped here) or refused here (then its recording is
 * skipped), never both. Answers how many were refused.
 */
export async function refusePending(db: Db, batchId: number, r: Refusal): Promise<number> {
  return unitOfWork(async (trx) => {
    const now = toDbTime();
    const n = await trx('recharge_batch_lines')
      .where({ batch_id: batchId, status: 'pending' })
      .update({ status: 'refused', error_code: r.code, error_message: r.message.slice(0, 128), error_vars: JSON.stringify(r.vars), updated_at: now });
    if (n > 0)
      await trx('recharge_batches')
        .where({ id: batchId })
        .update({ lines_refused: trx.raw('lines_refused + ?', [n]), updated_at: now });
    return n;
  }, db);
}

/**
 * Completes a batch with no line left pending, once (the guard: the state its completer holds it
 * in), with its recharge_batch.completed webhook event in the same transaction.
 */
export async function completeBatch(db: Db, batchId: number, guard: Record<string, unknown>): Promise<boolean> {
  return unitOfWork(async (trx) => {
    if (await trx('recharge_batch_lines').where({ batch_id: batchId }).whereIn('status', ['pending', 'selling']).first('id')) return false;
    const now = toDbTime();
    const n = await trx('recharge_batches')
      .where({ id: batchId, ...guard })
      .update({ status: 'completed', completed_at: now, lease_owner: null, lease_until: null, updated_at: now });
    if (n !== 1) return false;
    const row: BatchRow = await trx('recharge_batches').where({ id: batchId }).first();
    const sales = (await saleCounts(trx, [batchId])).get(batchId)!;
    await enqueueWebhookEvent(
      trx,
      row.dealer_id,
      'recharge_batch.completed',
      {
        id: row.reference,
        client_reference: row.client_reference,
        status: 'completed',
        lines_total: Number(row.lines_total),
        lines_delivered: sales.delivered,
        lines_failed: Number(row.lines_refused) + sales.failed,
        lines_pending: sales.in_progress,
        created_at: fromDbTime(row.created_at),
        completed_at: fromDbTime(row.completed_at),
      },
      modeOf(row.mode),
    );
    return true;
  }, db);
}

/**
 * Cancels the dealer's own batch: every line still pending is refused (recharge_batches.cancelled);
 * the lines already sold stay sold. A queued batch completes here; a running one when its
 * processor sees no line left. A completed batch is answered as it is.
 */
export async function cancelBatch(ctx: ServiceContext, reference: string, opts: { base: string }): Promise<RechargeBatchResponse> {
  const dealer = await batchDealer(ctx);
  const ref = reference.trim().toUpperCase();
  const found: BatchRow | undefined = /^RB[A-Z0-9]{10}$/.test(ref) ? await scoped(ctx).where({ reference: ref, dealer_id: dealer.id }).first() : undefined;
  if (!found) throw notFound('api:recharge_batches.not_found');
  if (found.status !== 'completed') {
    await refusePending(ctx.db, found.id, refusalOf('api:recharge_batches.cancelled'));
    await completeBatch(ctx.db, found.id, { status: 'queued' });
  }
  const row: BatchRow = await ctx.db('recharge_batches').where({ id: found.id }).first();
  return (await presentBatches(ctx.db, [row], opts.base))[0];
}
