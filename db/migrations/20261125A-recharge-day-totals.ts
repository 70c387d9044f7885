import crypto from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Sales per company day, kept by the database itself (docs/data-model.md, "Report totals"): the
 * reports and the dashboard read a month as a few thousand summed rows instead of every recharge.
 *
 * - `recharge_day_totals`: one row per day and everything a report filters or groups on (status,
 *   dealer, operator, bundle, payment method, pricing model, category and the two names), with the
 *   count and the sums of `amount`, `cost` and `profit`. A missing operator, bundle or payment
 *   method is 0 (a primary key holds no NULL). Rows that fall to a count of 0 are deleted.
 * - Only settled sales are kept: the in-flight statuses (pending, processing, needs_review) change
 *   many times per sale and are read from `recharges` directly (its (status, created_at) index),
 *   so a purchase writes nothing here and the worker's steps write nothing either.
 * - `day` is the company's day at a fixed UTC offset, `recharge_day_totals_state.offset_minutes`
 *   (Africa/Mogadishu: 180). The reports use the totals only when the zone's offset over the asked
 *   range is that offset and `ready` is set; otherwise they count `recharges` as before. When the
 *   company's zone moves to another offset, the API rebuilds the totals (rebuildDayTotals below).
 * - Triggers on `recharges` (insert, update, delete; one set per engine) change the totals in the
 *   same statement, hence the same transaction, as the sale's row. On MySQL/MariaDB a foreign key's
 *   ON DELETE SET NULL fires no trigger, so deleting an operator, a bundle or a payment method moves
 *   its totals to "none" with triggers on those tables; SQLite fires the recharges trigger itself.
 * - The MySQL/MariaDB triggers read the offset with a shared lock, so a rebuild's switch of offset
 *   waits for the sales being written and the sales after it see the new offset.
 *
 * The migration fills the totals from the existing recharges with the same rebuild the API runs.
 * With binary logging on, MySQL/MariaDB let a user create triggers only with SUPER or
 * log_bin_trust_function_creators = 1.
 */
export const config = { transaction: false };

export const DAY_TOTALS = 'recharge_day_totals';
export const DAY_TOTALS_STATE = 'recharge_day_totals_state';
/** Statuses kept out of the totals and read from `recharges` (indexed by status and time). */
export const IN_FLIGHT_STATUSES = ['pending', 'processing', 'needs_review'] as const;

const KEY = ['day', 'status', 'dealer_id', 'provider_id', 'bundle_id', 'payment_method_id', 'pricing_model', 'category_name', 'provider_name', 'bundle_name'];
const SUMS = ['sales', 'amount', 'cost', 'profit'];
const PARENTS = [
  ['providers', 'provider_id'],
  ['bundles', 'bundle_id'],
  ['payment_methods', 'payment_method_id'],
] as const;
const TRIGGERS = ['insert', 'update', 'delete'].map((e) => `${DAY_TOTALS}_on_${e}`);
const PARENT_TRIGGERS = PARENTS.map(([table]) => `${DAY_TOTALS}_${table}_deleted`);
/** Columns whose change moves a sale between totals rows. */
const WATCHED = [
  'status',
  'created_at',
  'dealer_id',
  'provider_id',
  'bundle_id',
  'payment_method_id',
  'pricing_model',
  'category_name',
  'provider_name',
  'bundle_name',
  'amount',
  'cost',
  'profit',
];

/** The watched columns, and the sale's mode once it exists. */
const watched = (liveOnly: boolean) => (liveOnly ? [...WATCHED, 'mode'] : WATCHED);

const isMysql = (knex: Knex) => knex.client.config.client === 'mysql2';
const inFlight = `(${IN_FLIGHT_STATUSES.map((s) => `'${s}'`).join(', ')})`;

/**
 * Whether a row (`r`: NEW, OLD or an alias) is counted: settled and, once test mode exists
 * (20261127L adds recharges.mode), a live sale: a test key's sales never reach the totals.
 */
const counted = (r: string, liveOnly: boolean) => `${r}.status NOT IN ${inFlight}${liveOnly ? ` AND ${r}.mode = 'live'` : ''}`;
/** Whether recharges has its mode column yet (the triggers and the rebuild count live sales only when it does). */
export const hasSaleMode = (knex: Knex) => knex.schema.hasColumn('recharges', 'mode');

/** The key and sums of one recharge row (`r`: NEW, OLD or a table alias), `day` given as SQL. */
function rowValues(r: string, day: string, sign: '' | '-', count: string): string[] {
  return [
    day,
    `${r}.status`,
    `${r}.dealer_id`,
    `COALESCE(${r}.provider_id, 0)`,
    `COALESCE(${r}.bundle_id, 0)`,
    `COALESCE(${r}.payment_method_id, 0)`,
    `${r}.pricing_model`,
    `${r}.category_name`,
    `${r}.provider_name`,
    `${r}.bundle_name`,
    `${sign}${count}`,
    `${sign}${r}.amount`,
    `${sign}${r}.cost`,
    `${sign}${r}.profit`,
  ];
}

const sqliteDay = (column: string, minutes: string) => `COALESCE(strftime('%Y-%m-%d', ${column}, ${minutes} || ' minutes'), '')`;
const mysqlDay = (column: string, minutes: string) => `COALESCE(DATE_FORMAT(${column} + INTERVAL ${minutes} MINUTE, '%Y-%m-%d'), '')`;

function sqliteTriggers(liveOnly: boolean): string[] {
  const add = (r: 'NEW' | 'OLD', sign: '' | '-') => `
    INSERT INTO ${DAY_TOTALS} (${[...KEY, ...SUMS].join(', ')})
    SELECT ${rowValues(r, sqliteDay(`${r}.created_at`, 's.offset_minutes'), sign, '1').join(', ')}
    FROM ${DAY_TOTALS_STATE} AS s WHERE s.id = 1 AND ${counted(r, liveOnly)}
    ON CONFLICT (${KEY.join(', ')}) DO UPDATE SET ${SUMS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')};`;
  const dropZero = `
    DELETE FROM ${DAY_TOTALS} WHERE sales = 0 AND ${counted('OLD', liveOnly)}
    AND ${KEY.map((c, i) => `${c} = ${i === 0 ? `(SELECT ${sqliteDay('OLD.created_at', 's.offset_minutes')} FROM ${DAY_TOTALS_STATE} AS s WHERE s.id = 1)` : rowValues('OLD', '', '', '1')[i]}`).join(' AND ')};`;
  const changed = watched(liveOnly)
    .map((c) => `OLD.${c} IS NOT NEW.${c}`)
    .join(' OR ');
  return [
    `CREATE TRIGGER ${TRIGGERS[0]} AFTER INSERT ON recharges WHEN ${counted('NEW', liveOnly)} BEGIN ${add('NEW', '')} END`,
    `CREATE TRIGGER ${TRIGGERS[1]} AFTER UPDATE ON recharges
     WHEN ((${counted('OLD', liveOnly)}) OR (${counted('NEW', liveOnly)})) AND (${changed})
     BEGIN ${add('OLD', '-')} ${dropZero} ${add('NEW', '')} END`,
    `CREATE TRIGGER ${TRIGGERS[2]} AFTER DELETE ON recharges WHEN ${counted('OLD', liveOnly)} BEGIN ${add('OLD', '-')} ${dropZero} END`,
  ];
}

function mysqlTriggers(liveOnly: boolean): string[] {
  const upsert = (r: 'NEW' | 'OLD', sign: '' | '-') => `
    INSERT INTO ${DAY_TOTALS} (${[...KEY, ...SUMS].join(', ')})
    VALUES (${rowValues(r, mysqlDay(`${r}.created_at`, 'v_offset'), sign, '1').join(', ')})
    ON DUPLICATE KEY UPDATE ${SUMS.map((c) => `${c} = ${c} + VALUES(${c})`).join(', ')};`;
  const dropZero = `
    DELETE FROM ${DAY_TOTALS} WHERE sales = 0
    AND ${KEY.map((c, i) => `${c} = ${rowValues('OLD', mysqlDay('OLD.created_at', 'v_offset'), '', '1')[i]}`).join(' AND ')};`;
  const body = (parts: string) => `
    BEGIN
      DECLARE v_offset INT DEFAULT NULL;
      DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_offset = NULL;
      SELECT offset_minutes INTO v_offset FROM ${DAY_TOTALS_STATE} WHERE id = 1 LOCK IN SHARE MODE;
      IF v_offset IS NOT NULL THEN ${parts} END IF;
    END`;
  const unchanged = watched(liveOnly)
    .map((c) => `OLD.${c} <=> NEW.${c}`)
    .join(' AND ');
  const triggers = [
    `CREATE TRIGGER ${TRIGGERS[0]} AFTER INSERT ON recharges FOR EACH ROW
     BEGIN IF ${counted('NEW', liveOnly)} THEN ${body(upsert('NEW', ''))}; END IF; END`,
    `CREATE TRIGGER ${TRIGGERS[1]} AFTER UPDATE ON recharges FOR EACH ROW
     BEGIN
       IF ((${counted('OLD', liveOnly)}) OR (${counted('NEW', liveOnly)})) AND NOT (${unchanged}) THEN
         ${body(`
           IF ${counted('OLD', liveOnly)} THEN ${upsert('OLD', '-')} ${dropZero} END IF;
           IF ${counted('NEW', liveOnly)} THEN ${upsert('NEW', '')} END IF;`)};
       END IF;
     END`,
    `CREATE TRIGGER ${TRIGGERS[2]} AFTER DELETE ON recharges FOR EACH ROW
     BEGIN IF ${counted('OLD', liveOnly)} THEN ${body(`${upsert('OLD', '-')} ${dropZero}`)}; END IF; END`,
  ];
  // ON DELETE SET NULL runs inside InnoDB and fires no trigger on recharges: the parent's own
  // trigger moves its totals to 0 ("none"), merging with rows already there.
  PARENTS.forEach(([table, column], i) => {
    const cols = [...KEY, ...SUMS];
    triggers.push(`CREATE TRIGGER ${PARENT_TRIGGERS[i]} AFTER DELETE ON ${table} FOR EACH ROW
      BEGIN
        INSERT INTO ${DAY_TOTALS} (${cols.join(', ')})
        SELECT ${cols.map((c) => (c === column ? '0' : `x.${c}`)).join(', ')} FROM ${DAY_TOTALS} AS x WHERE x.${column} = OLD.id
        ON DUPLICATE KEY UPDATE ${SUMS.map((c) => `${c} = ${DAY_TOTALS}.${c} + VALUES(${c})`).join(', ')};
        DELETE FROM ${DAY_TOTALS} WHERE ${column} = OLD.id;
      END`);
  });
  return triggers;
}

/** Minutes a zone is ahead of UTC now (the API's zoneOffsetMinutes; db imports no API code). */
function offsetNow(timeZone: string): number {
  const at = new Date();
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

const dbTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const dayMs = (day: string) => Date.parse(`${day}T00:00:00.000Z`);
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const parseDbTime = (value: unknown) => (value === null || value === undefined ? NaN : Date.parse(`${String(value).replace(' ', 'T')}Z`));

/** A rebuild is abandoned when another one has taken over (a newer zone) or it stopped answering. */
export const DAY_TOTALS_LEASE_MS = 120_000;
const SPAN_DAYS = 1;

/**
 * Rebuilds the totals for `offsetMinutes` from `recharges` while sales go on: claims the state
 * (offset switched, `ready` cleared, a token of its own), then replaces the totals one day at a
 * time (short transactions, far below the API's statement ceiling). Each span locks its recharges (shared, with the gaps of the created_at index on
 * MySQL/MariaDB; SQLite has one writer), deletes the span's totals and inserts them from the
 * recharges, so a sale changed during the rebuild is counted once: by the span (before it) or by
 * its trigger (after it, at the new offset). Finally `ready` is set, if the token is still ours.
 * Returns false when there was nothing to claim (another rebuild is under way) or it was overtaken.
 */
export async function rebuildDayTotals(knex: Knex, offsetMinutes: number, opts: { force?: boolean } = {}): Promise<boolean> {
  const mysql = isMysql(knex);
  const token = crypto.randomBytes(12).toString('hex');
  const stale = dbTime(Date.now() - DAY_TOTALS_LEASE_MS);
  const claim = knex(DAY_TOTALS_STATE).where({ id: 1 });
  if (!opts.force) {
    claim
      .where((q) => q.whereNot('offset_minutes', offsetMinutes).orWhere('ready', false))
      .where((q) => q.whereNull('building_since').orWhere('building_since', '<', stale).orWhereNot('offset_minutes', offsetMinutes));
  }
  const claimed = await claim.update({ offset_minutes: offsetMinutes, ready: false, build_token: token, building_since: dbTime(Date.now()) });
  if (!claimed) return false;
  const liveOnly = await hasSaleMode(knex);
  try {
    // Every day that holds totals (those of the old offset too) or recharges, at the new offset.
    const days = new Set<string>(
      (await knex(DAY_TOTALS).distinct('day')).map((r: { day: string }) => r.day).filter((d: string) => /^\d{4}-\d\d-\d\d$/.test(d)),
    );
    const span = (await knex('recharges').min({ lo: 'created_at' }).max({ hi: 'created_at' }).first()) as { lo: unknown; hi: unknown } | undefined;
    const lo = parseDbTime(span?.lo);
    const hi = parseDbTime(span?.hi);
    if (Number.isFinite(lo) && Number.isFinite(hi)) {
      for (let d = dayMs(dayOf(lo + offsetMinutes * 60_000)); d <= hi + offsetMinutes * 60_000; d += 86_400_000) days.add(dayOf(d));
    }
    const sorted = [...days].sort();
    let beat = Date.now();
    for (let i = 0; i < sorted.length;) {
      const first = sorted[i];
      let last = first;
      while (i < sorted.length && dayMs(sorted[i]) < dayMs(first) + SPAN_DAYS * 86_400_000) last = sorted[i++];
      if (!(await rebuildSpan(knex, mysql, token, offsetMinutes, first, last, liveOnly))) return false;
      if (Date.now() - beat > DAY_TOTALS_LEASE_MS / 4) {
        beat = Date.now();
        const alive = await knex(DAY_TOTALS_STATE)
          .where({ id: 1, build_token: token })
          .update({ building_since: dbTime(beat) });
        if (!alive) return false;
      }
    }
    const done = await knex(DAY_TOTALS_STATE).where({ id: 1, build_token: token }).update({ ready: true, build_token: null, building_since: null });
    return done > 0;
  } catch (err) {
    await knex(DAY_TOTALS_STATE)
      .where({ id: 1, build_token: token })
      .update({ building_since: null })
      .catch(() => undefined);
    throw err;
  }
}

async function rebuildSpan(knex: Knex, mysql: boolean, token: string, offsetMinutes: number, first: string, last: string, liveOnly: boolean): Promise<boolean> {
  const from = dbTime(dayMs(first) - offsetMinutes * 60_000);
  const to = dbTime(dayMs(last) + 86_400_000 - offsetMinutes * 60_000);
  for (let attempt = 1; ; attempt++) {
    try {
      return await knex.transaction(
        async (trx) => {
          const read = trx(DAY_TOTALS_STATE).where({ id: 1 });
          const state = await (mysql ? read.forShare() : read).first('build_token');
          if (state?.build_token !== token) return false;
          if (mysql) {
            await trx.raw(
              'SELECT COUNT(*) AS n FROM recharges FORCE INDEX (recharges_created_at_index) WHERE created_at >= ? AND created_at < ? LOCK IN SHARE MODE',
              [from, to],
            );
          }
          await trx(DAY_TOTALS).where('day', '>=', first).where('day', '<=', last).delete();
          const day = mysql ? mysqlDay('r.created_at', String(offsetMinutes)) : sqliteDay('r.created_at', `'${offsetMinutes}'`);
          await trx.raw(
            `INSERT INTO ${DAY_TOTALS} (${[...KEY, ...SUMS].join(', ')})
           SELECT ${rowValues('r', day, '', 'COUNT(*)')
             .map((v, i) => (i >= KEY.length ? v.replace(/^r\.(\w+)$/, 'SUM(r.$1)') : v))
             .join(', ')}
           FROM recharges AS r WHERE r.created_at >= ? AND r.created_at < ? AND ${counted('r', liveOnly)}
           GROUP BY ${KEY.map((_, i) => i + 1).join(', ')}`,
            [from, to],
          );
          return true;
        },
        mysql ? { isolationLevel: 'repeatable read' } : undefined,
      );
    } catch (err) {
      // A deadlock with a sale or a busy SQLite: the span is tried again from the start.
      if (attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}

/**
 * After a later migration drops a column of `recharges` on SQLite (knex rebuilds the table, and
 * the rebuild loses its triggers), the day totals' triggers are made again. MySQL keeps them.
 */
export async function restoreRechargeTriggers(knex: Knex): Promise<void> {
  if (isMysql(knex)) return;
  await recreateRechargeTriggers(knex);
}

/** Drops the triggers on `recharges` (before a column they read is dropped). */
export async function dropRechargeTriggers(knex: Knex): Promise<void> {
  for (const name of TRIGGERS) await knex.raw(`DROP TRIGGER IF EXISTS ${name}`);
}

/** Makes the triggers on `recharges` again, counting live sales only once recharges.mode exists (20261127L). */
export async function recreateRechargeTriggers(knex: Knex): Promise<void> {
  const liveOnly = await hasSaleMode(knex);
  const mysql = isMysql(knex);
  await dropRechargeTriggers(knex);
  // On MySQL/MariaDB the parents' triggers are made with them: only the first three are the sales'.
  const all = mysql ? mysqlTriggers(liveOnly) : sqliteTriggers(liveOnly);
  for (const sql of all.slice(0, TRIGGERS.length)) await knex.raw(sql);
}

async function dropAll(knex: Knex): Promise<void> {
  for (const name of [...TRIGGERS, ...PARENT_TRIGGERS]) await knex.raw(`DROP TRIGGER IF EXISTS ${name}`);
  await knex.schema.dropTableIfExists(DAY_TOTALS);
  await knex.schema.dropTableIfExists(DAY_TOTALS_STATE);
}

export async function up(knex: Knex): Promise<void> {
  const mysql = isMysql(knex);
  // Run without a transaction (MySQL commits each CREATE anyway, and the fill goes span by span):
  // whatever a failed run left is dropped first.
  await dropAll(knex);
  await knex.schema.createTable(DAY_TOTALS_STATE, (t) => {
    t.integer('id').unsigned().primary();
    t.integer('offset_minutes').notNullable();
    t.boolean('ready').notNullable().defaultTo(false);
    t.string('build_token', 32).nullable();
    t.datetime('building_since', { precision: 3 }).nullable();
  });
  await knex.schema.createTable(DAY_TOTALS, (t) => {
    t.string('day', 10).notNullable();
    t.string('status', 16).notNullable();
    t.integer('dealer_id').unsigned().notNullable();
    t.integer('provider_id').unsigned().notNullable();
    t.integer('bundle_id').unsigned().notNullable();
    t.integer('payment_method_id').unsigned().notNullable();
    t.string('pricing_model', 16).notNullable();
    t.string('category_name', 191).notNullable();
    t.string('provider_name', 191).notNullable();
    t.string('bundle_name', 191).notNullable();
    t.bigInteger('sales').notNullable();
    t.bigInteger('amount').notNullable();
    t.bigInteger('cost').notNullable();
    t.bigInteger('profit').notNullable();
    t.primary(KEY);
    t.index(['dealer_id', 'day']);
    // For the parents' delete triggers (MySQL/MariaDB only).
    if (mysql) for (const [, column] of PARENTS) t.index([column]);
  });
  const setting = await knex('settings').where({ group: 'company', key: 'timezone' }).first('value');
  let offset = 180;
  try {
    offset = offsetNow(setting?.value || 'Africa/Mogadishu');
  } catch {
    // An unknown zone: the API's first report rebuilds at the right offset.
  }
  await knex(DAY_TOTALS_STATE).insert({ id: 1, offset_minutes: offset, ready: false });
  const liveOnly = await hasSaleMode(knex);
  for (const sql of mysql ? mysqlTriggers(liveOnly) : sqliteTriggers(liveOnly)) await knex.raw(sql);
  await rebuildDayTotals(knex, offset, { force: true });
}

export async function down(knex: Knex): Promise<void> {
  await dropAll(knex);
}
