import type { Request, Response } from 'express';
import {
  batchPreviewSchema,
  idempotencyKeySchema,
  rechargeBatchDetailSchema,
  rechargeBatchLinesQuery,
  rechargeBatchListQuery,
  rechargeBatchResponseSchema,
  rechargeBatchSchema,
  type RechargeBatchInput,
  type RechargeBatchResponse,
} from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { keyContext } from '../api-keys/api-key-auth.ts';
import { headerError, resellerKeyPrefix } from '../reseller/idempotency-header.ts';
import { isDealer } from '../platform/context.ts';
import { cancelBatch, createBatch, listBatches, previewBatch, readBatch } from './recharge-batch.service.ts';

/**
 * Bulk sales on both surfaces: the reseller API (a dealer's key, registered on the reseller
 * router) and the console (/api/v1/recharge-batches, a signed-in dealer; staff read them).
 */
const RESELLER_BASE = '/api/reseller/v1/recharge-batches';
const CONSOLE_BASE = '/api/v1/recharge-batches';

// Each surface's keys live apart (one column, unique per dealer): a console key never answers an API call's batch.
const CONSOLE_KEY_PREFIX = 'co/';

/** The Idempotency-Key header, required: missing or malformed is a 400. */
function batchKey(req: Request, prefix: string): string {
  const raw = req.get('idempotency-key');
  if (!raw) throw headerError('validation:idempotency_key_required');
  const checked = idempotencyKeySchema.max(128 - prefix.length, { message: 'validation:idempotency_key_invalid' }).safeParse(raw);
  if (!checked.success) throw headerError(checked.error.issues[0].message);
  return `${prefix}${checked.data}`;
}

/** A new batch is 202; the same key and body again answer the first batch, 200 and marked a replay. */
function createdAnswer(res: Response, created: boolean, batch: RechargeBatchResponse) {
  if (!created) res.setHeader('Idempotent-Replayed', 'true');
  return { status: created ? 202 : 200, message: created ? 'api:recharge_batches.accepted' : 'api:recharge_batches.already_accepted', data: batch };
}

const BATCH_EXAMPLE = {
  id: 'RB7K3M9Q2XPA',
  client_reference: 'payroll-2026-11',
  mode: 'live',
  status: 'running',
  lines_total: 3,
  lines_pending: 1,
  lines_accepted: 1,
  lines_refused: 1,
  sales: { delivered: 1, failed: 0, in_progress: 0 },
  progress: 66,
  lines_url: `${RESELLER_BASE}/RB7K3M9Q2XPA`,
  created_at: '2026-11-27T09:15:00.000Z',
  started_at: '2026-11-27T09:15:00.120Z',
  completed_at: null,
};
const BODY_EXAMPLE = {
  client_reference: 'payroll-2026-11',
  lines: [
    { phone: '0615123456', bundle_id: 3, client_reference: 'emp-001' },
    { phone: '0775123456', bundle_id: 3 },
    { phone: '0905123456', bundle_id: 3 },
  ],
};
const LINES_EXAMPLE = [
  {
    line_no: 1,
    phone: '0615123456',
    bundle_id: 3,
    client_reference: 'emp-001',
    status: 'accepted',
    recharge: { id: 412, reference: 'RC7K3M9Q2XPA', status: 'completed' },
    error: null,
  },
  {
    line_no: 2,
    phone: '0905123456',
    bundle_id: 3,
    client_reference: null,
    status: 'refused',
    recharge: null,
    error: { code: 'phone.wrong_operator', message: 'This number is not a Hormuud number (it should start with 61, 77).' },
  },
];
const PREVIEW_EXAMPLE = {
  lines: [
    { line_no: 1, ok: true, phone: '615123456', bundle_name: '1 GB Daily', cost: '0.45', problems: [] },
    {
      line_no: 2,
      ok: false,
      phone: '905123456',
      bundle_name: '1 GB Daily',
      cost: '0.45',
      problems: [
        { field: 'phone', code: 'phone.wrong_operator', message: 'This number is not a Hormuud number (it should start with 61, 77).', level: 'error' },
      ],
    },
  ],
  totals: { lines: 2, ok: 1, refused: 1, warnings: 0, total_cost: '0.45', balance: '12.00', beyond_balance: 0, currency: 'USD' },
};

const BATCH_DESCRIPTION =
  'Up to 1,000 lines (a number and a bundle each), every one paid from the dealer\u2019s wallet and sold in the background in line order, each exactly as POST /recharges with payment "wallet" would. A line the sale refuses (the balance short for it, a bundle not offered, a number of another operator or not a Somali mobile number) is recorded with its reason and the batch goes on; the wallet is never spent beyond its balance. Answers 202 with the batch: follow it with GET /recharge-batches/{id} (its counts and its lines page by page), or the `recharge_batch.completed` webhook. Idempotent: the same Idempotency-Key with the same body answers the first batch (200, header `Idempotent-Replayed: true`), another body under a used key is a 422.';

const CANCEL_DESCRIPTION =
  'Every line still pending is refused with the code `recharge_batches.cancelled`; a line being sold at that moment is either sold or cancelled, never both, and the lines already sold stay sold (their sales go on). A queued batch completes at once, a running one as soon as its processor sees no line left (then the `recharge_batch.completed` webhook). Cancelling a completed batch changes nothing and answers it.';

/** The reseller API's bulk sales, on its router (reseller.routes.ts). */
export function registerResellerBatchRoutes(api: ApiRouter): void {
  api.post(
    '/recharge-batches/preview',
    {
      summary: 'Check a batch without selling: every line\u2019s problems, and the total against the wallet\u2019s balance',
      auth: 'api-key',
      scope: 'recharges:write',
      body: rechargeBatchSchema,
      response: batchPreviewSchema,
      examples: { body: BODY_EXAMPLE, data: PREVIEW_EXAMPLE },
    },
    async (req, ctx) => ({ data: await previewBatch(keyContext(req, ctx), req.body as RechargeBatchInput) }),
  );

  api.post(
    '/recharge-batches',
    {
      summary: 'Sell up to 1,000 bundles in one call, paid from the dealer\u2019s wallet',
      description: BATCH_DESCRIPTION,
      auth: 'api-key',
      scope: 'recharges:write',
      body: rechargeBatchSchema,
      status: 202,
      response: rechargeBatchResponseSchema,
      headers: [{ name: 'Idempotency-Key', required: true, description: 'One per batch (8-125 letters, digits, _ . : -); send it again on a retry' }],
      errors: {
        200: 'The same Idempotency-Key and body again: the first batch as it stands (header Idempotent-Replayed: true), nothing sold again',
        400: 'The Idempotency-Key header is missing or malformed',
        422: 'An invalid body (no lines, more than 1,000), or the Idempotency-Key used before for another batch',
      },
      examples: { body: BODY_EXAMPLE, data: { ...BATCH_EXAMPLE, status: 'queued', lines_pending: 3, lines_accepted: 0, lines_refused: 0, progress: 0 } },
    },
    async (req, ctx, res) => {
      const kctx = keyContext(req, ctx);
      const { created, batch } = await createBatch(kctx, req.body as RechargeBatchInput, batchKey(req, resellerKeyPrefix(kctx.mode)), {
        apiKeyId: req.apiKey?.id ?? null,
        base: RESELLER_BASE,
      });
      return createdAnswer(res, created, batch);
    },
  );

  api.get(
    '/recharge-batches',
    {
      summary: 'The dealer\u2019s batches, newest first, with their counts (filter status)',
      auth: 'api-key',
      scope: 'recharges:read',
      query: rechargeBatchListQuery.omit({ dealer_id: true }),
      list: true,
      response: rechargeBatchResponseSchema,
      examples: { data: [BATCH_EXAMPLE] },
    },
    async (req, ctx) => listBatches(keyContext(req, ctx), req.query as Record<string, string>, { base: RESELLER_BASE, withDealer: false }),
  );

  api.get(
    '/recharge-batches/:id',
    {
      summary: 'One of the dealer\u2019s batches (RB…): its counts and progress, and its lines page by page (?page&per_page&status)',
      auth: 'api-key',
      scope: 'recharges:read',
      query: rechargeBatchLinesQuery,
      response: rechargeBatchDetailSchema,
      errors: { 404: 'No batch of this dealer has this id' },
      examples: { data: { ...BATCH_EXAMPLE, lines: LINES_EXAMPLE, lines_meta: { current_page: 1, per_page: 50, total: 3, last_page: 1 } } },
    },
    async (req, ctx) => ({
      data: await readBatch(keyContext(req, ctx), String(req.params.id), req.query as Record<string, string>, { base: RESELLER_BASE, withDealer: false }),
    }),
  );

  api.post(
    '/recharge-batches/:id/cancel',
    {
      summary: 'Cancel one of the dealer\u2019s batches: its lines not yet sold are refused (recharge_batches.cancelled), those sold stay sold',
      description: CANCEL_DESCRIPTION,
      auth: 'api-key',
      scope: 'recharges:write',
      response: rechargeBatchResponseSchema,
      errors: { 404: 'No batch of this dealer has this id' },
      examples: { data: { ...BATCH_EXAMPLE, status: 'running', lines_pending: 0, lines_refused: 2, progress: 100 } },
    },
    async (req, ctx) => ({
      message: 'api:recharge_batches.cancelled_answer',
      data: await cancelBatch(keyContext(req, ctx), String(req.params.id), { base: RESELLER_BASE }),
    }),
  );
}

/**
 * /recharge-batches in the console: a dealer sends and follows its own batches ("view recharges"
 * and "view own wallet": it sells from its wallet); staff holding "view recharges" read every
 * dealer's, and send none (they have no wallet).
 */
export function rechargeBatchRoutes(registry: OpenApiRegistry) {
  const api = new ApiRouter(registry, '/recharge-batches', 'Bulk sales');

  api.post(
    '/preview',
    {
      summary: 'Check a batch without selling: every line\u2019s problems, and the total against the wallet\u2019s balance (dealers)',
      permission: ['view recharges', 'view own wallet'],
      body: rechargeBatchSchema,
      response: batchPreviewSchema,
      errors: { 403: 'Not a dealer' },
      examples: { body: BODY_EXAMPLE, data: PREVIEW_EXAMPLE },
    },
    async (req, ctx) => ({ data: await previewBatch(ctx, req.body as RechargeBatchInput) }),
  );

  api.post(
    '/',
    {
      summary: 'Sell up to 1,000 bundles from the dealer\u2019s wallet (dealers)',
      description: BATCH_DESCRIPTION,
      permission: ['view recharges', 'view own wallet'],
      body: rechargeBatchSchema,
      status: 202,
      response: rechargeBatchResponseSchema,
      headers: [{ name: 'Idempotency-Key', required: true, description: 'One per batch; the console sends one per confirmation' }],
      errors: {
        200: 'The same Idempotency-Key and body again: the first batch as it stands (header Idempotent-Replayed: true)',
        400: 'The Idempotency-Key header is missing or malformed',
        403: 'Not a dealer',
        422: 'An invalid body, or the Idempotency-Key used before for another batch',
      },
      examples: { body: BODY_EXAMPLE },
    },
    async (req, ctx, res) => {
      const { created, batch } = await createBatch(ctx, req.body as RechargeBatchInput, batchKey(req, CONSOLE_KEY_PREFIX), { base: CONSOLE_BASE });
      return createdAnswer(res, created, batch);
    },
  );

  api.get(
    '/',
    {
      summary: 'Batches newest first: a dealer its own, staff every dealer\u2019s (filter status, dealer_id)',
      permission: 'view recharges',
      query: rechargeBatchListQuery,
      list: true,
      response: rechargeBatchResponseSchema,
    },
    async (req, ctx) => listBatches(ctx, req.query as Record<string, string>, { base: CONSOLE_BASE, withDealer: !isDealer(ctx.actor) }),
  );

  api.get(
    '/:id',
    {
      summary: 'A batch (RB…) with its counts and one page of its lines (?page&per_page&status)',
      permission: 'view recharges',
      query: rechargeBatchLinesQuery,
      response: rechargeBatchDetailSchema,
      errors: { 404: 'No batch with this id (or another dealer\u2019s)' },
    },
    async (req, ctx) => ({
      data: await readBatch(ctx, String(req.params.id), req.query as Record<string, string>, { base: CONSOLE_BASE, withDealer: !isDealer(ctx.actor) }),
    }),
  );

  api.post(
    '/:id/cancel',
    {
      summary: 'Cancel one of the dealer\u2019s batches: its lines not yet sold are refused, those sold stay sold (dealers)',
      description: CANCEL_DESCRIPTION,
      permission: ['view recharges', 'view own wallet'],
      response: rechargeBatchResponseSchema,
      errors: { 403: 'Not a dealer', 404: 'No batch of this dealer has this id' },
    },
    async (req, ctx) => ({ message: 'api:recharge_batches.cancelled_answer', data: await cancelBatch(ctx, String(req.params.id), { base: CONSOLE_BASE }) }),
  );

  return api;
}
