import type { Knex } from 'knex';
import { nationalNumber } from '@app/contracts';
import { fromDbTime, toDbTime } from '../database/time.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { AppError, notFound } from '../http/errors.ts';
import { isDealer, transact, type ServiceContext } from '../platform/context.ts';
import { serviceLog } from '../platform/logger.ts';
import { encodeId } from '../http/ids.ts';

/**
 * What comes back from Africa's Talking (docs/integrations.md, "SMS receipts"): delivery reports
 * of the receipts, and customers' replies. A reply that says the bundle was not received, from
 * the number of a recent delivered sale (or naming its reference), opens a case on that sale for
 * the review queue, with its evidence; a staff member closes it (delivered confirmed, or refunded
 * by hand through the sale's own Refund). Everything received is stored; nothing here answers 500.
 */
type Db = Knex | Knex.Transaction;

/** A reply saying the bundle did not arrive: English, Somali, Arabic. */
const NOT_RECEIVED = [
  /\bnot\s+(?:yet\s+)?(?:received|receive|arrived|got(?:ten)?)\b/i,
  /\b(?:did\s*n[o']?t|never|have\s*n[o']?t|has\s*n[o']?t)\s+(?:get|got|receive|received|arrive|arrived)\b/i,
  /\bnothing\s+(?:received|arrived|came)\b/i,
  /\b(?:lama|ma|weli\s+ma)\s+(?:helin|heleyn|helay|gaarin|iman|imaan)\b/i,
  /لم\s*(?:يصل|تصل|يصلني|تصلني|استلم|أستلم|اتسلم|أتسلم|احصل|أحصل)/,
  /ما\s*(?:وصل|وصلني|استلمت|جاني)/,
];
/** A sale's reference (RC and ten letters or digits), as the receipt gave it. */
const REFERENCE = /\bRC[A-Z0-9]{10}\b/i;
/** How far back a reply is matched to a delivered sale. */
const RECENT_DAYS = 7;

export const saysNotReceived = (text: string) => NOT_RECEIVED.some((re) => re.test(text));

/** One line of the sale's remote-call trail for what Africa's Talking told us (the trail is where staff read a sale's calls). */
async function trailLine(
  db: Db,
  rechargeId: number,
  line: { operation: string; url: string; request: unknown; outcome: 'ok' | 'refused' | 'unknown'; error?: string | null },
) {
  await db('remote_calls').insert({
    recharge_id: rechargeId,
    system: 'africastalking',
    operation: line.operation.slice(0, 100),
    method: 'POST',
    url: line.url,
    request: JSON.stringify(line.request).slice(0, 4000),
    response: null,
    http_status: 200,
    outcome: line.outcome,
    error: line.error?.slice(0, 500) ?? null,
    duration_ms: 0,
    created_at: toDbTime(),
  });
}

export interface DeliveryReport {
  id?: string;
  status?: string;
  phoneNumber?: string;
  failureReason?: string;
}

const FINAL: Record<string, 'delivered' | 'failed'> = { success: 'delivered', failed: 'failed', rejected: 'failed' };
const ON_THE_WAY = new Set(['sent', 'submitted', 'buffered']);

/** A delivery report: the receipt's status (a final word is never replaced by an on-the-way one), and a line of its sale's trail. */
export async function recordDeliveryReport(db: Knex, report: DeliveryReport): Promise<'recorded' | 'unknown_message' | 'invalid'> {
  const id = String(report.id ?? '').trim();
  const status = String(report.status ?? '').trim();
  if (!id || !status) return 'invalid';
  const word = status.toLowerCase();
  return db.transaction(async (trx) => {
    const message = await trx('sms_messages').where({ provider_message_id: id }).forUpdate().first('id', 'recharge_id', 'status');
    if (!message) {
      serviceLog.info({ id, status }, 'SMS delivery report for no receipt of ours');
      return 'unknown_message' as const;
    }
    const final = FINAL[word];
    const settled = message.status === 'delivered' || message.status === 'failed';
    const now = toDbTime();
    await trx('sms_messages')
      .where({ id: message.id })
      .update({
        ...(final && !settled ? { status: final } : {}),
        ...(!settled || final ? { provider_status: status.slice(0, 32) } : {}),
        failure_reason: report.failureReason ? String(report.failureReason).slice(0, 255) : final === 'delivered' ? null : trx.raw('failure_reason'),
        reported_at: now,
        updated_at: now,
      });
    await trailLine(trx, Number(message.recharge_id), {
      operation: `SMS delivery report: ${status}`,
      url: '/api/v1/sms/delivery-reports',
      request: { id, status, phoneNumber: report.phoneNumber ?? null, failureReason: report.failureReason ?? null },
      outcome: final === 'delivered' ? 'ok' : final ? 'refused' : ON_THE_WAY.has(word) ? 'unknown' : 'unknown',
      error: report.failureReason ?? null,
    });
    return 'recorded' as const;
  });
}

export interface InboundMessage {
  from?: string;
  to?: string;
  text?: string;
  date?: string;
  id?: string;
}

export type InboundOutcome = 'case_opened' | 'case_exists' | 'no_sale' | 'not_a_claim';

/** A customer's reply: stored, and when it says "not received" about a recent delivered sale of its number, a case on that sale. */
export async function receiveInbound(db: Knex, input: InboundMessage): Promise<{ outcome: InboundOutcome; caseId: number | null } | 'invalid'> {
  const from = String(input.from ?? '').trim();
  const text = String(input.text ?? '').trim();
  if (!from) return 'invalid';
  const providerId = input.id ? String(input.id).trim().slice(0, 100) : null;
  return db.transaction(async (trx) => {
    if (providerId) {
      const seen = await trx('sms_inbound').where({ provider_id: providerId }).first('outcome', 'recharge_id');
      if (seen) {
        const open = seen.recharge_id ? await trx('sale_cases').where({ recharge_id: seen.recharge_id }).orderBy('id', 'desc').first('id') : null;
        return { outcome: seen.outcome as InboundOutcome, caseId: open ? Number(open.id) : null };
      }
    }
    const national = nationalNumber(from);
    const claim = saysNotReceived(text);
    const reference = REFERENCE.exec(text)?.[0]?.toUpperCase() ?? null;
    let sale: { id: number; dealer_id: number; reference: string; operator_reference: string | null; completed_at: string | null } | undefined;
    if (claim && national) {
      const since = toDbTime(new Date(Date.now() - RECENT_DAYS * 86_400_000));
      const qb = trx('recharges')
        .where('status', 'completed')
        // A test-mode sale is the sandbox's: no customer of it replies.
        .where('mode', 'live')
        .where((w) => w.where('phone', national).orWhere('payer_phone', national))
        .where('created_at', '>=', since);
      if (reference) qb.where('reference', reference);
      sale = await qb.orderBy('id', 'desc').first('id', 'dealer_id', 'reference', 'operator_reference', 'completed_at');
    }
    let outcome: InboundOutcome = !claim ? 'not_a_claim' : sale ? 'case_opened' : 'no_sale';
    let caseId: number | null = null;
    const now = toDbTime();
    const inbound: Record<string, unknown> & { outcome: InboundOutcome; to_code: string | null; text: string; sent_at_text: string | null } = {
      provider_id: providerId,
      from_phone: from.slice(0, 32),
      to_code: input.to ? String(input.to).slice(0, 32) : null,
      text: text.slice(0, 1000),
      sent_at_text: input.date ? String(input.date).slice(0, 64) : null,
      recharge_id: sale?.id ?? null,
      outcome,
      created_at: now,
      updated_at: now,
    };
    if (sale) {
      const open = await trx('sale_cases').where({ recharge_id: sale.id, status: 'open' }).first('id');
      if (open) {
        outcome = 'case_exists';
        caseId = Number(open.id);
        inbound.outcome = outcome;
      } else {
        const receipt = await trx('sms_messages').where({ recharge_id: sale.id, kind: 'delivered' }).first();
        const evidence = {
          reply: { from, to: inbound.to_code, text: inbound.text, date: inbound.sent_at_text, id: providerId },
          receipt: receipt
            ? {
                message: receipt.message,
                phone: receipt.phone,
                status: receipt.status,
                provider_status: receipt.provider_status ?? null,
                failure_reason: receipt.failure_reason ?? null,
                message_id: receipt.provider_message_id ?? null,
                sent_at: fromDbTime(receipt.sent_at),
                reported_at: fromDbTime(receipt.reported_at),
              }
            : null,
          operator_reference: sale.operator_reference ?? null,
          completed_at: fromDbTime(sale.completed_at),
        };
        const [inserted] = await trx('sale_cases').insert({
          recharge_id: sale.id,
          dealer_id: sale.dealer_id,
          kind: 'not_received',
          status: 'open',
          evidence: JSON.stringify(evidence),
          created_at: now,
          updated_at: now,
        });
        caseId = typeof inserted === 'object' ? Number((inserted as { id: number }).id) : Number(inserted);
      }
      await trailLine(trx, sale.id, {
        operation: `SMS reply: ${outcome === 'case_opened' ? 'not received, case opened' : 'not received, case already open'}`,
        url: '/api/v1/sms/inbound',
        request: { from, text: inbound.text, date: inbound.sent_at_text, id: providerId },
        outcome: 'refused',
        error: null,
      });
    }
    await trx('sms_inbound').insert(inbound);
    if (!sale) serviceLog.info({ from, outcome, id: providerId }, 'SMS reply stored, no sale matched');
    return { outcome, caseId };
  });
}

/** The review queue's cases: open first (or closed, ?status=closed), each with its sale and evidence. */
export async function listCases(ctx: ServiceContext, status: 'open' | 'closed' = 'open', only?: number) {
  const qb = ctx
    .db('sale_cases')
    .join('recharges', 'recharges.id', 'sale_cases.recharge_id')
    .join('users as dealers', 'dealers.id', 'sale_cases.dealer_id')
    .where('sale_cases.status', status)
    .orderBy('sale_cases.id', status === 'open' ? 'asc' : 'desc')
    .limit(200);
  if (isDealer(ctx.actor)) qb.where('sale_cases.dealer_id', ctx.actor.id);
  if (only !== undefined) qb.where('sale_cases.id', only);
  const rows = await qb.select(
    'sale_cases.*',
    'recharges.reference',
    'recharges.phone',
    'recharges.bundle_name',
    'recharges.provider_name',
    'recharges.status as recharge_status',
    'dealers.name as dealer_name',
  );
  return rows.map(presentCase);
}

function presentCase(r: Record<string, unknown>) {
  let evidence: unknown = null;
  try {
    evidence = JSON.parse(String(r.evidence));
  } catch {
    evidence = null;
  }
  return {
    id: Number(r.id),
    kind: r.kind as string,
    status: r.status as string,
    recharge: {
      id: Number(r.recharge_id),
      h_id: encodeId(Number(r.recharge_id)),
      reference: r.reference as string,
      phone: r.phone as string,
      bundle_name: r.bundle_name as string,
      provider_name: r.provider_name as string,
      status: r.recharge_status as string,
    },
    dealer: { id: Number(r.dealer_id), name: r.dealer_name as string },
    evidence,
    resolution: (r.resolution as string | null) ?? null,
    note: (r.note as string | null) ?? null,
    closed_at: fromDbTime(r.closed_at as string | null),
    created_at: fromDbTime(r.created_at as string)!,
  };
}
export type SaleCase = ReturnType<typeof presentCase>;

/** Closes a case: the bundle was delivered after all, or the customer was refunded (by the sale's Refund). Logged. */
export async function closeCase(ctx: ServiceContext, rawId: string, input: { resolution: 'delivered_confirmed' | 'refunded'; note?: string | null }) {
  const id = Number(rawId);
  if (!Number.isInteger(id) || id <= 0) throw notFound();
  return transact(ctx, async (tctx) => {
    const row = await tctx.db('sale_cases').where({ id }).forUpdate().first();
    if (!row || (isDealer(ctx.actor) && Number(row.dealer_id) !== ctx.actor.id)) throw notFound();
    if (row.status !== 'open') throw new AppError(409, 'api:sms.case_closed_already');
    const now = toDbTime();
    await tctx
      .db('sale_cases')
      .where({ id })
      .update({ status: 'closed', resolution: input.resolution, note: input.note?.trim() || null, closed_by: ctx.actor.id, closed_at: now, updated_at: now });
    await recordActivity(tctx, {
      action: 'updated',
      subjectType: 'recharge',
      subjectId: Number(row.recharge_id),
      description: `SMS case ${id} closed: ${input.resolution}`,
      before: { case: 'open' },
      after: { case: 'closed', resolution: input.resolution, note: input.note ?? null },
    });
    const [closed] = await listCases(tctx, 'closed', id);
    return closed;
  });
}
