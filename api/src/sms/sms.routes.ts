import crypto from 'node:crypto';
import express from 'express';
import type { Knex } from 'knex';
import { z } from 'zod';
import { SIGNED_IN } from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import { forbidden } from '../http/errors.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { serviceLog } from '../platform/logger.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { resolveDealer } from '../dealer-catalogue/dealer-catalogue.service.ts';
import { toDbTime } from '../database/time.ts';
import { callbackSecret, smsReceiptsOn } from './sms-config.ts';
import { closeCase, listCases, receiveInbound, recordDeliveryReport } from './sms-cases.ts';

/**
 * Africa's Talking's callbacks (docs/integrations.md, "SMS receipts"): `POST /api/v1/sms/delivery-reports`
 * and `POST /api/v1/sms/inbound`, form bodies, authenticated by SMS_CALLBACK_SECRET passed as the
 * `secret` query parameter of the URL registered with Africa's Talking (compared in constant time).
 * A wrong or missing secret answers 401 and changes nothing; with no SMS_CALLBACK_SECRET set the
 * callbacks answer 404 (they do not exist here). Whatever the body, an authenticated callback is
 * answered 200 once stored (the vendor retries anything else), never 500.
 */
function secretMatches(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

const fields = (body: unknown): Record<string, string | undefined> =>
  body && typeof body === 'object'
    ? Object.fromEntries(
        Object.entries(body as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'string' ? v : Array.isArray(v) ? String(v[0]) : undefined]),
      )
    : {};

export function smsCallbackRoutes(knex: Knex): express.Router {
  const db = () => knex;
  const router = express.Router();
  const callbacks = ['/delivery-reports', '/inbound'];
  router.use(callbacks, express.urlencoded({ extended: false, limit: '64kb' }));
  router.use(callbacks, (req, res, next) => {
    const expected = callbackSecret();
    if (!expected) return void res.status(404).json({ success: false, message: req.t('api:errors.route_not_found') });
    if (!secretMatches(req.query.secret, expected)) return void res.status(401).json({ success: false, message: req.t('api:sms.callback_secret_invalid') });
    next();
  });
  router.post('/delivery-reports', async (req, res) => {
    try {
      const outcome = await recordDeliveryReport(db(), fields(req.body));
      res.status(outcome === 'invalid' ? 422 : 200).json({ success: outcome !== 'invalid', data: { outcome } });
    } catch (err) {
      serviceLog.error({ err }, 'SMS delivery report not recorded');
      res.status(503).json({ success: false, message: req.t('api:errors.server') });
    }
  });
  router.post('/inbound', async (req, res) => {
    try {
      const result = await receiveInbound(db(), fields(req.body));
      if (result === 'invalid') return void res.status(422).json({ success: false, data: { outcome: 'invalid' } });
      res.status(200).json({ success: true, data: { outcome: result.outcome, case_id: result.caseId } });
    } catch (err) {
      serviceLog.error({ err }, 'SMS reply not stored');
      res.status(503).json({ success: false, message: req.t('api:errors.server') });
    }
  });
  return router;
}

const caseSchema = z.object({
  id: z.number().int(),
  kind: z.string(),
  status: z.string(),
  recharge: z.object({
    id: z.number().int(),
    h_id: z.string(),
    reference: z.string(),
    phone: z.string(),
    bundle_name: z.string(),
    provider_name: z.string(),
    status: z.string(),
  }),
  dealer: z.object({ id: z.number().int(), name: z.string() }),
  evidence: z.unknown(),
  resolution: z.string().nullable(),
  note: z.string().nullable(),
  closed_at: z.string().nullable(),
  created_at: z.string(),
});
const closeSchema = z.object({
  resolution: z.enum(['delivered_confirmed', 'refunded'], { message: 'validation:sms_case_resolution_invalid' }),
  note: z.string().trim().max(500, { message: 'validation:too_long' }).nullable().optional(),
});
const settingsSchema = z.object({ sms_receipts: z.boolean({ message: 'validation:invalid_value' }) });
const settingsAnswer = z.object({ sms_receipts: z.boolean(), available: z.boolean().describe('SMS settings are present on this server') });
const dealerQuery = z.object({ dealer_id: z.string().optional().describe('Staff: the dealer (id or h_id); a dealer is always itself') });

/** A dealer's receipts switch: the dealer itself, or staff who may see (read) or update (write) users. */
async function receiptsDealer(ctx: ServiceContext, raw: unknown, write: boolean) {
  if (!isDealer(ctx.actor) && !ctx.actor.permissions.has(write ? 'update users' : 'view users') && !(!write && ctx.actor.permissions.has('view dealers')))
    throw forbidden();
  return resolveDealer(ctx, raw);
}

/** /sms: the review queue's "not received" cases, and a dealer's receipts switch. */
export function smsRoutes(registry: OpenApiRegistry) {
  const api = new ApiRouter(registry, '/sms', 'SMS receipts');
  api.get(
    '/cases',
    {
      summary: 'Cases opened by a customer\'s "not received" reply, with their evidence (open, or ?status=closed)',
      permission: 'review recharges',
      query: z.object({ status: z.enum(['open', 'closed']).optional() }),
      response: z.array(caseSchema),
    },
    async (req, ctx) => ({ data: await listCases(ctx, (req.query.status as 'open' | 'closed' | undefined) ?? 'open') }),
  );
  api.post(
    '/cases/:id/close',
    {
      summary: "Close a case: delivered after all, or refunded (by the sale's own Refund)",
      permission: 'review recharges',
      body: closeSchema,
      response: caseSchema,
      errors: { 409: 'The case is closed already' },
    },
    async (req, ctx) => ({ message: 'api:sms.case_closed', data: await closeCase(ctx, String(req.params.id), req.body as z.infer<typeof closeSchema>) }),
  );
  api.get(
    '/settings',
    { summary: "A dealer's SMS receipts: on (default) or off", permission: SIGNED_IN, query: dealerQuery, response: settingsAnswer },
    async (req, ctx) => {
      const dealer = await receiptsDealer(ctx, req.query.dealer_id, false);
      const row = await ctx.db('users').where({ id: dealer.id }).first('sms_receipts');
      return { data: { sms_receipts: Boolean(Number(row?.sms_receipts ?? 1)), available: smsReceiptsOn() } };
    },
  );
  api.put(
    '/settings',
    { summary: "Turn a dealer's SMS receipts on or off (logged)", permission: SIGNED_IN, query: dealerQuery, body: settingsSchema, response: settingsAnswer },
    async (req, ctx) => {
      const dealer = await receiptsDealer(ctx, req.query.dealer_id, true);
      const on = (req.body as z.infer<typeof settingsSchema>).sms_receipts;
      await transact(ctx, async (tctx) => {
        const trx = tctx.db;
        const before = await trx('users').where({ id: dealer.id }).forUpdate().first('sms_receipts');
        const was = Boolean(Number(before?.sms_receipts ?? 1));
        if (was === on) return;
        await trx('users').where({ id: dealer.id }).update({ sms_receipts: on, updated_at: toDbTime() });
        await recordActivity(tctx, {
          action: 'updated',
          subjectType: 'user',
          subjectId: dealer.id,
          before: { sms_receipts: was },
          after: { sms_receipts: on },
        });
      });
      return { message: on ? 'api:sms.receipts_on' : 'api:sms.receipts_off', data: { sms_receipts: on, available: smsReceiptsOn() } };
    },
  );
  return api;
}
