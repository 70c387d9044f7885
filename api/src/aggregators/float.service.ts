import type { Knex } from 'knex';
import { aggregatorLabel, formatMinor, MAX_MONEY_LIMIT_MINOR, SUPER_ADMIN_ROLE, type AggregatorAlert, type AggregatorResponse } from '@app/contracts';
import type { BalanceResult, OperatorAdapter } from '../connectors/deliveries/operator-adapter.ts';
import { fromDbTime, startOfZonedDay, toDbTime, zonedDay } from '../database/time.ts';
import { fieldError, notFound } from '../http/errors.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { translator } from '../i18n/server-i18n.ts';
import { serviceLog } from '../platform/logger.ts';
import { systemContext, type ServiceContext } from '../platform/context.ts';
import { appUrlOf } from '../config.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { readMailServer, sendMail } from '../settings/mail-settings.ts';

/**
 * The float left at each aggregator (docs/integrations.md, "The aggregators' float"). Its balance
 * is read on a schedule and after every few sales delivered through it; each read is stored in
 * `aggregator_floats`. Crossing below the threshold sends ONE email to the staff who manage
 * delivery routes, decided by a single conditional UPDATE of `below_since` (of any number of
 * processes reading at once, exactly one changes the row and mails); a read at or above the
 * threshold clears it, re-arming the alert.
 */
type Db = Knex | Knex.Transaction;

/** What this process reads floats from: its aggregators, which of them deliver here, which are real. */
export interface FloatSources {
  operators?: Record<string, OperatorAdapter>;
  usableAggregator?: (name: string) => boolean;
  live?: string[];
}

interface FloatRow {
  aggregator: string;
  balance: number | string | null;
  currency: string | null;
  threshold: number | string | null;
  checked_at: string | null;
  check_error: string | null;
  below_since: string | null;
  alerted_at: string | null;
  sales_since_check: number;
}

const TABLE = 'aggregator_floats';
const num = (v: number | string | null | undefined) => (v === null || v === undefined ? null : Number(v));

/** The aggregators whose float this process reads: usable here, and able to tell their balance. */
export function floatAdapters(sources: FloatSources): OperatorAdapter[] {
  return Object.values(sources.operators ?? {}).filter((o) => o.capabilities.balance && (sources.usableAggregator?.(o.name) ?? true));
}

/** The row of an aggregator, made the first time (a no-op when it exists, whoever races). */
async function ensureRow(db: Db, aggregator: string): Promise<void> {
  await db(TABLE).insert({ aggregator, sales_since_check: 0, updated_at: toDbTime() }).onConflict('aggregator').ignore();
}

/** Reads under way, per database handle (a process has one) and aggregator. */
const readings = new WeakMap<Knex, Map<string, Promise<void>>>();

/**
 * Reads an aggregator's balance now and stores it (or why it got no answer, keeping the balance
 * before); then decides the crossing. One read per aggregator at a time in this process.
 */
export function readFloat(db: Knex, adapter: OperatorAdapter): Promise<void> {
  let reading = readings.get(db);
  if (!reading) readings.set(db, (reading = new Map()));
  const running = reading.get(adapter.name);
  if (running) return running;
  const run = (async () => {
    await ensureRow(db, adapter.name);
    // The balance is as of when the read began: a slower read begun earlier (in this process or
    // another) never overwrites a newer one, nor re-arms an alert the newer one decided.
    const startedAt = toDbTime();
    let result: BalanceResult;
    try {
      result = await adapter.balance({ rechargeId: null });
    } catch (err) {
      result = { status: 'unknown', error: err instanceof Error ? err.message : String(err) };
    }
    const now = toDbTime();
    if (result.status === 'ok') {
      const stored = await db(TABLE)
        .where({ aggregator: adapter.name })
        .where((w) => w.whereNull('checked_at').orWhere('checked_at', '<', startedAt))
        .update({ balance: result.amount, currency: result.currency, checked_at: startedAt, check_error: null, updated_at: now });
      if (stored) await decideCrossing(db, adapter.name);
    } else {
      await db(TABLE)
        .where({ aggregator: adapter.name })
        .update({ check_error: result.error.slice(0, 500), updated_at: now });
    }
  })().finally(() => reading.delete(adapter.name));
  reading.set(adapter.name, run);
  return run;
}

/**
 * Re-arms the alert when the stored balance is back at or above the threshold (or there is none),
 * then claims a new crossing with one conditional UPDATE and mails only when it changed the row.
 */
async function decideCrossing(db: Knex, aggregator: string): Promise<void> {
  const now = toDbTime();
  await db(TABLE)
    .where({ aggregator })
    .whereNotNull('below_since')
    .where((w) => w.whereNull('threshold').orWhereNull('balance').orWhereRaw('balance >= threshold'))
    .update({ below_since: null, updated_at: now });
  const crossed = await db(TABLE)
    .where({ aggregator })
    .whereNull('below_since')
    .whereNotNull('threshold')
    .whereNotNull('balance')
    .whereRaw('balance < threshold')
    .update({ below_since: now, updated_at: now });
  // Mailed in the background: a slow mail server must not hold a sale's read or an admin's answer.
  if (crossed === 1) {
    const mailing = sendFloatAlert(db, aggregator).finally(() => mailing && alerts.delete(mailing));
    alerts.add(mailing);
  }
}

const alerts = new Set<Promise<void>>();
/** Resolves when the alert emails under way in this process are done (tests, a graceful stop). */
export async function floatAlertsSettled(): Promise<void> {
  while (alerts.size) await Promise.all([...alerts]);
}

/** Reads every float this process reads, one after the other; a failure is logged, never thrown. */
export async function readAllFloats(db: Knex, sources: FloatSources): Promise<void> {
  for (const adapter of floatAdapters(sources)) {
    try {
      await readFloat(db, adapter);
    } catch (err) {
      serviceLog.warn({ err, aggregator: adapter.name }, 'float read failed');
    }
  }
}

// Off until the server sets it (server.ts, FLOAT_CHECK_EVERY_SALES): a test's worker reads no float unless asked.
let everySales = 0;
/** FLOAT_CHECK_EVERY_SALES of this process (0: no reads after sales). */
export function setFloatCheckEverySales(n: number): void {
  everySales = n;
}

/**
 * Called, never awaited, when a sale was delivered through an aggregator: counts it with one
 * atomic UPDATE and, at every FLOAT_CHECK_EVERY_SALES-th sale, reads the float. A conditional
 * UPDATE takes the N sales off the count, so of several processes only one reads. Never throws, never
 * slows the sale: errors are logged.
 */
export function noticeFloatSale(db: Knex, adapter: OperatorAdapter | undefined): void {
  if (!adapter?.capabilities.balance || everySales <= 0) return;
  void (async () => {
    try {
      const counted = await db(TABLE)
        .where({ aggregator: adapter.name })
        .update({ sales_since_check: db.raw('sales_since_check + 1') });
      if (!counted) {
        await ensureRow(db, adapter.name);
        await db(TABLE)
          .where({ aggregator: adapter.name })
          .update({ sales_since_check: db.raw('sales_since_check + 1') });
      }
      // Takes N off rather than zeroing, so sales counted meanwhile by other processes are kept.
      const due = await db(TABLE)
        .where({ aggregator: adapter.name })
        .where('sales_since_check', '>=', everySales)
        .update({ sales_since_check: db.raw('sales_since_check - ?', [everySales]) });
      if (due === 1) await readFloat(db, adapter);
    } catch (err) {
      serviceLog.warn({ err, aggregator: adapter.name }, 'float read after a sale failed');
    }
  })();
}

/**
 * Reads the floats every `minutes` (the first time shortly after start), where the worker runs.
 * Returns a stop function.
 */
export function scheduleFloatChecks(db: Knex, sources: FloatSources, minutes: number, firstInMs = 15_000): () => void {
  if (!minutes || !floatAdapters(sources).length) return () => undefined;
  let timer: NodeJS.Timeout;
  let stopped = false;
  const run = async () => {
    await readAllFloats(db, sources);
    if (stopped) return;
    timer = setTimeout(() => void run(), minutes * 60_000);
    timer.unref();
  };
  timer = setTimeout(() => void run(), firstInMs);
  timer.unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Whether recharges has H1's aggregator_cost yet (what the aggregator said a sale cost), kept a minute. */
let costColumn: { at: number; has: Promise<boolean> } | null = null;
function hasAggregatorCost(db: Knex): Promise<boolean> {
  if (!costColumn || Date.now() - costColumn.at > 60_000) costColumn = { at: Date.now(), has: db.schema.hasColumn('recharges', 'aggregator_cost') };
  return costColumn.has;
}

/**
 * The average daily spend through each aggregator over the last 7 full company days (cents): what
 * the aggregator said each completed live sale cost, else the sale's cost (a test key's sales went
 * through the sandbox and spent no float).
 */
async function dailySpend(db: Knex, timeZone: string): Promise<Map<string, number>> {
  const today = zonedDay(new Date(), timeZone);
  const until = startOfZonedDay(today, timeZone);
  // Noon of the day a week back, then its day: a day is not always 24 hours.
  const since = startOfZonedDay(zonedDay(new Date(until.getTime() - 7 * 86_400_000 + 12 * 3_600_000), timeZone), timeZone);
  const cost = (await hasAggregatorCost(db)) ? 'COALESCE(aggregator_cost, cost)' : 'cost';
  const rows: { aggregator: string; spent: number | string }[] = await db('recharges')
    .where('mode', 'live')
    .where('status', 'completed')
    .where('created_at', '>=', toDbTime(since))
    .where('created_at', '<', toDbTime(until))
    .whereNotNull('operator_adapter')
    .groupBy('operator_adapter')
    .select('operator_adapter as aggregator', db.raw(`SUM(${cost}) as spent`));
  return new Map(rows.map((r) => [r.aggregator, Number(r.spent) / 7]));
}

function present(name: string, live: boolean, row: FloatRow | undefined, perDay: number | undefined): AggregatorResponse {
  const balance = num(row?.balance);
  const threshold = num(row?.threshold);
  const spend = perDay && perDay > 0 ? perDay : null;
  return {
    name,
    label: aggregatorLabel(name),
    live,
    balance: balance === null ? null : formatMinor(balance),
    currency: row?.currency ?? null,
    threshold: threshold === null ? null : formatMinor(threshold),
    checked_at: fromDbTime(row?.checked_at),
    check_error: row?.check_error ?? null,
    below_threshold: balance !== null && threshold !== null && balance < threshold,
    days_left: spend === null || balance === null ? null : Math.floor((Math.max(0, balance) / spend) * 10) / 10,
    daily_spend: spend === null ? null : formatMinor(Math.round(spend)),
  };
}

/** Every aggregator whose float this process reads, with its last reading and forecast. */
export async function listFloats(db: Knex, sources: FloatSources): Promise<AggregatorResponse[]> {
  const adapters = floatAdapters(sources);
  if (!adapters.length) return [];
  const { timezone } = await readCompanySettings(db);
  const [rows, spend] = await Promise.all([
    db(TABLE).whereIn(
      'aggregator',
      adapters.map((a) => a.name),
    ) as Promise<FloatRow[]>,
    dailySpend(db, timezone),
  ]);
  const byName = new Map(rows.map((r) => [r.aggregator, r]));
  const live = new Set(sources.live ?? []);
  return adapters.map((a) => present(a.name, live.has(a.name), byName.get(a.name), spend.get(a.name)));
}

/**
 * The aggregators below their threshold as last read, by any process (the console's banner, the
 * dashboard's `floats`): read from the stored floats alone, so any process can answer it.
 */
export async function floatAlerts(db: Knex): Promise<AggregatorAlert[]> {
  const rows: FloatRow[] = await db(TABLE).whereNotNull('threshold').whereNotNull('balance').whereRaw('balance < threshold').orderBy('aggregator');
  if (!rows.length) return [];
  const { timezone } = await readCompanySettings(db);
  const spend = await dailySpend(db, timezone);
  return rows.map((r) => {
    const f = present(r.aggregator, false, r, spend.get(r.aggregator));
    return { name: f.name, label: f.label, balance: f.balance, currency: f.currency, threshold: f.threshold, days_left: f.days_left };
  });
}

/** One aggregator this process reads, by name, or 404. */
export function floatAdapter(sources: FloatSources, name: string): OperatorAdapter {
  const adapter = floatAdapters(sources).find((a) => a.name === name);
  if (!adapter) throw notFound('api:aggregators.not_found');
  return adapter;
}

export async function findFloat(db: Knex, sources: FloatSources, name: string): Promise<AggregatorResponse> {
  floatAdapter(sources, name);
  return (await listFloats(db, sources)).find((f) => f.name === name)!;
}

/**
 * Sets (or with null clears) an aggregator's alert threshold, logged. A new threshold re-arms the
 * alert and is decided at once against the last balance read (below it: the email goes now).
 */
export async function setFloatThreshold(ctx: ServiceContext, sources: FloatSources, name: string, threshold: number | null): Promise<void> {
  floatAdapter(sources, name);
  if (threshold !== null && threshold > MAX_MONEY_LIMIT_MINOR) throw fieldError('threshold', 'validation:money_limit_too_high');
  const db = ctx.db as Knex;
  await ensureRow(db, name);
  const before = num(((await db(TABLE).where({ aggregator: name }).first('threshold')) as { threshold: number | string | null }).threshold);
  if (before === threshold) return;
  await db.transaction(async (trx) => {
    await trx(TABLE).where({ aggregator: name }).update({ threshold, below_since: null, updated_at: toDbTime() });
    await recordActivity(
      { ...ctx, db: trx },
      {
        action: 'aggregator_float_threshold_changed',
        subjectType: 'aggregator',
        description: `float alert threshold of ${name}`,
        before: { aggregator: name, threshold: before === null ? null : formatMinor(before) },
        after: { aggregator: name, threshold: threshold === null ? null : formatMinor(threshold) },
      },
    );
  });
  await decideCrossing(db, name);
}

/** Staff who hear of a low float: active admins holding "manage delivery routes" (super admins hold every permission). */
async function floatRecipients(db: Db): Promise<{ name: string; email: string }[]> {
  return db('users')
    .where({ user_type: 'admin', status: 'active' })
    .whereNull('users.deleted_at')
    .whereNotNull('users.email')
    .whereExists((q) =>
      q
        .select(db.raw('1'))
        .from('user_roles')
        .join('roles', 'roles.id', 'user_roles.role_id')
        .whereRaw('user_roles.user_id = users.id')
        .whereNull('roles.deleted_at')
        .where((w) =>
          w
            .where('roles.name', SUPER_ADMIN_ROLE)
            .orWhereExists((p) =>
              p
                .select(db.raw('1'))
                .from('role_permissions')
                .join('permissions', 'permissions.id', 'role_permissions.permission_id')
                .whereRaw('role_permissions.role_id = roles.id')
                .where('permissions.name', 'manage delivery routes'),
            ),
        ),
    )
    .orderBy('users.id')
    .select('users.name', 'users.email');
}

/**
 * The one email of a crossing, to every recipient at once; `alerted_at` records it. A mail server
 * missing or refusing is logged and written in the activity log, never thrown.
 */
async function sendFloatAlert(db: Knex, aggregator: string): Promise<void> {
  const ctx = systemContext({ db });
  const failed = async (reason: string, facts: Record<string, unknown>) => {
    serviceLog.warn({ aggregator, reason }, 'float alert not sent');
    await recordActivity(ctx, {
      action: 'aggregator_float_alert_failed',
      subjectType: 'aggregator',
      description: `float alert of ${aggregator} not sent: ${reason}`,
      after: facts,
    });
  };
  try {
    const row = (await db(TABLE).where({ aggregator }).first()) as FloatRow;
    const company = await readCompanySettings(db);
    const perDay = (await dailySpend(db, company.timezone)).get(aggregator);
    const shown = present(aggregator, false, row, perDay);
    const facts = { aggregator, balance: shown.balance, threshold: shown.threshold, currency: shown.currency };
    const recipients = await floatRecipients(db);
    if (!recipients.length) return failed('nobody holds "manage delivery routes" with an email address', facts);
    const server = await readMailServer(db);
    if (!server) return failed('the mail settings are not saved', facts);
    // The company's language: the product keeps no language per user.
    const t = translator('en');
    const vars = {
      aggregator: shown.label,
      balance: shown.balance,
      threshold: shown.threshold,
      currency: shown.currency ?? '',
      company: company.company_name,
      link: `${appUrlOf()}/aggregators`,
      days_left: shown.days_left === null ? '' : t('api:aggregators.float_mail_days_left', { days: shown.days_left }),
    };
    const to = recipients.map((r) => r.email).join(', ');
    let sent: { messageId: string };
    try {
      sent = await sendMail(server, { to, subject: t('api:aggregators.float_mail_subject', vars), text: t('api:aggregators.float_mail_body', vars) });
    } catch (err) {
      return failed(err instanceof Error ? err.message.slice(0, 300) : String(err), facts);
    }
    await db(TABLE).where({ aggregator }).update({ alerted_at: toDbTime() });
    await recordActivity(ctx, {
      action: 'aggregator_float_alert_sent',
      subjectType: 'aggregator',
      description: `float alert of ${aggregator} sent to ${to}`,
      after: { ...facts, to, message_id: sent.messageId },
    });
  } catch (err) {
    serviceLog.warn({ err, aggregator }, 'float alert failed');
  }
}
