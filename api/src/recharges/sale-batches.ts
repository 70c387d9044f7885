import type { Knex } from 'knex';
import { AppError } from '../http/errors.ts';
import { isUniqueViolation } from '../database/db-errors.ts';
import { currentTransaction, detached, rootKnex, unitOfWork } from '../database/unit-of-work.ts';
import { debitMany } from '../wallets/ledger.ts';
import type { ServiceContext } from '../platform/context.ts';
import { saleLogRow } from './sale-events.ts';
import type { RechargeRow } from './recharge-rows.ts';
import { toDbTime } from '../database/time.ts';
import { rechargeEventData, walletEventData, webhookEventRow, writeEvents } from '../webhooks/webhook-events.ts';
import { modeOf } from '../platform/sale-mode.ts';

/**
 * Group commit of storefront sales on MySQL/MariaDB (issue 17). Every sale of a shop waits on its
 * wallet's row from the debit to COMMIT, and each statement costs the API a round trip; so the
 * sales of one wallet that arrive while its previous group is being written are written together
 * in the next: one multi-row INSERT of the recharges, one of their log lines, one conditional
 * debit of the wallet for their total (ledger.ts debitMany) and one multi-row INSERT of their
 * ledger rows, whatever the group's size; for a dealer with a webhook, one read (before the debit)
 * and one multi-row INSERT of the events (recharge.created, wallet.debited).
 *
 * Only the plain case is grouped. A group the database refuses as a whole (the wallet cannot pay
 * every sale in it, any other error) is rolled back, and each of its sales is answered `null`: the
 * caller then writes it on its own (recharge.service.ts), where the refusals, the missed-sale
 * record and the repeated key have their rules. A repeated idempotency key sends only its own
 * sales that way; the rest of the group is written together again. A sick database (503)
 * fails the group's sales with that answer. SQLite groups its writes differently
 * (database/write-batches.ts): its one connection makes savepoints cheap and round trips free.
 */
export interface BatchedSale {
  ctx: Pick<ServiceContext, 'actor' | 'ip' | 'userAgent'>;
  /** The recharges row, complete but for its id; its `reference` is unique. */
  row: Record<string, unknown> & { reference: string };
  /** What the sale's 'sale.created' log line says (its recharge id is filled in here). */
  logged: unknown;
  /** The cost the shop's wallet pays for the sale ("Cost + Profit"), if any. */
  debit: { walletId: number; amount: number } | null;
}

export interface BatchedResult {
  id: number;
  /** The group's debit left the wallet under its threshold, not yet told (low-balance.ts). */
  lowBalanceDue: boolean;
}

interface Job {
  sale: BatchedSale;
  resolve: (value: BatchedResult | null) => void;
  reject: (err: unknown) => void;
}

/** One queue per wallet (0: sales that debit nothing); one group of a wallet is written at a time. */
interface Lane {
  jobs: Job[];
  running: boolean;
  scheduled: boolean;
}

export class SaleBatches {
  private lanes = new Map<number, Lane>();
  /** Groups committed, the sales in them, and groups refused (their sales then went alone). */
  readonly stats = { groups: 0, sales: 0, refused: 0 };

  constructor(private readonly maxBatch = 64) {}

  /** Applies on MySQL/MariaDB outside any open transaction; elsewhere the caller writes the sale itself. */
  applies(): boolean {
    return !currentTransaction() && rootKnex().client.config.client === 'mysql2';
  }

  /** The sale's id once its group has committed, or null: write it on its own. */
  write(sale: BatchedSale): Promise<BatchedResult | null> {
    const key = sale.debit?.walletId ?? 0;
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { jobs: [], running: false, scheduled: false }));
    return new Promise((resolve, reject) => {
      lane.jobs.push({ sale, resolve, reject });
      this.pump(key, lane);
    });
  }

  /** Starts the lane's next group on the next turn of the event loop, so that sales read in this turn join it. */
  private pump(key: number, lane: Lane): void {
    if (lane.scheduled || lane.running || !lane.jobs.length) return;
    lane.scheduled = true;
    setImmediate(() => {
      lane.scheduled = false;
      if (lane.running || !lane.jobs.length) return;
      const group = lane.jobs.splice(0, this.maxBatch);
      lane.running = true;
      // A group belongs to no caller's async context (other callers' sales are in it).
      void detached(() => this.run(key, group)).finally(() => {
        lane.running = false;
        if (lane.jobs.length) this.pump(key, lane);
        else this.lanes.delete(key);
      });
    });
  }

  private async run(walletId: number, group: Job[]): Promise<void> {
    let results: BatchedResult[];
    try {
      results = await unitOfWork((trx) =>
        writeGroup(
          trx,
          walletId,
          group.map((j) => j.sale),
        ),
      );
    } catch (err) {
      this.stats.refused++;
      if (err instanceof AppError && err.status === 503) for (const job of group) job.reject(err);
      else {
        // A repeated key (a double tap, a retry of an earlier sale) refuses the whole INSERT: only
        // its sales go alone (to find their first sale); the others are written together again.
        const repeated = isUniqueViolation(err) && group.length > 1 ? await repeatedKeys(group) : new Set<Job>();
        const rest = group.filter((job) => !repeated.has(job));
        for (const job of group) if (repeated.has(job) || !rest.length || rest.length === group.length) job.resolve(null);
        if (repeated.size && rest.length) await this.run(walletId, rest);
      }
      return;
    }
    this.stats.groups++;
    this.stats.sales += group.length;
    group.forEach((job, i) => job.resolve(results[i]));
  }
}

/** The sales of a group whose key is taken: by a committed sale, or by an earlier sale of the group. */
async function repeatedKeys(group: Job[]): Promise<Set<Job>> {
  const keyOf = (job: Job) => `${String(job.sale.row.dealer_id)}:${String(job.sale.row.idempotency_key)}`;
  const taken = new Set<string>();
  const dealers = [...new Set(group.map((job) => Number(job.sale.row.dealer_id)))];
  for (const dealerId of dealers) {
    const keys = group.filter((job) => Number(job.sale.row.dealer_id) === dealerId).map((job) => String(job.sale.row.idempotency_key));
    const rows: { idempotency_key: string }[] = await rootKnex()('recharges')
      .where('dealer_id', dealerId)
      .whereIn('idempotency_key', keys)
      .select('idempotency_key');
    for (const r of rows) taken.add(`${dealerId}:${r.idempotency_key}`);
  }
  const repeated = new Set<Job>();
  const seen = new Set<string>();
  for (const job of group) {
    const key = keyOf(job);
    if (taken.has(key) || seen.has(key)) repeated.add(job);
    seen.add(key);
  }
  return repeated;
}

/** Thrown inside a group's transaction to roll it back: its sales are then written one by one. */
class GroupRefused extends Error {}

async function writeGroup(trx: Knex.Transaction, walletId: number, sales: BatchedSale[]): Promise<BatchedResult[]> {
  const [firstId] = await trx('recharges').insert(sales.map((s) => s.row));
  // One row: its id is the insert's. Several: read them back by their unique references (the ids
  // of a multi-row insert are consecutive only under some auto-increment lock modes).
  const ids =
    sales.length === 1
      ? [Number(firstId)]
      : await (async () => {
          const rows: { id: number; reference: string }[] = await trx('recharges')
            .whereIn(
              'reference',
              sales.map((s) => s.row.reference),
            )
            .select('id', 'reference');
          const byReference = new Map(rows.map((r) => [r.reference, Number(r.id)]));
          return sales.map((s) => byReference.get(s.row.reference) ?? 0);
        })();
  if (ids.some((id) => !id)) throw new GroupRefused();
  await trx('activity_log').insert(sales.map((s, i) => saleLogRow(s.ctx, { type: 'sale.created', rechargeId: ids[i], after: s.logged })));
  // The dealers with a webhook (read before the wallet's row is locked): their events go in one insert below.
  const told = await webhookDealers(trx, sales, walletId);
  const events: ReturnType<typeof webhookEventRow>[] = [];
  sales.forEach((s, i) => {
    if (told.dealers.has(Number(s.row.dealer_id)))
      events.push(
        webhookEventRow(Number(s.row.dealer_id), 'recharge.created', rechargeEventData({ ...s.row, id: ids[i] } as unknown as RechargeRow), {
          mode: modeOf(s.row.mode as string | undefined),
        }),
      );
  });
  let lowBalanceDue = false;
  const debits = sales.flatMap((s, i) => (s.debit ? [{ sale: s, id: ids[i] }] : []));
  if (debits.length) {
    const posted = await debitMany(
      trx,
      walletId,
      debits.map(({ sale, id }) => ({
        kind: 'recharge_debit' as const,
        amount: sale.debit!.amount,
        rechargeId: id,
        reference: sale.row.reference,
        actorId: sale.ctx.actor.id,
      })),
    );
    if (!posted) throw new GroupRefused();
    lowBalanceDue = posted.lowBalanceDue;
    // Each ledger row's balance after it, chained in the group's order as debitMany wrote them.
    let balance = posted.balanceAfter + debits.reduce((sum, d) => sum + d.sale.debit!.amount, 0);
    const postedAt = toDbTime();
    for (const { sale } of debits) {
      balance -= sale.debit!.amount;
      const dealerId = Number(sale.row.dealer_id);
      if (!told.dealers.has(dealerId)) continue;
      const row = { kind: 'recharge_debit', amount: sale.debit!.amount, balance_after: balance, reference: sale.row.reference, created_at: postedAt };
      const clientReference = (sale.row.client_reference as string | null | undefined) ?? null;
      events.push(
        webhookEventRow(dealerId, 'wallet.debited', walletEventData(row, told.currency, clientReference), {
          at: postedAt,
          mode: modeOf(sale.row.mode as string | undefined),
        }),
      );
    }
  }
  await writeEvents(trx, events);
  // One alert per group is enough (it is sent once per crossing anyway): the last sale's.
  return ids.map((id, i) => ({ id, lowBalanceDue: lowBalanceDue && i === ids.length - 1 }));
}

/** Of the group's dealers, those with a webhook that is on; and the wallet's currency, for its events. */
async function webhookDealers(trx: Knex.Transaction, sales: BatchedSale[], walletId: number): Promise<{ dealers: Set<number>; currency: string }> {
  const dealerIds = [...new Set(sales.map((s) => Number(s.row.dealer_id)))];
  const rows: { dealer_id: number; currency: string | null }[] = await trx('webhook_endpoints')
    .leftJoin('wallets', (j) => j.on('wallets.id', '=', trx.raw('?', [walletId])))
    .whereIn('webhook_endpoints.dealer_id', dealerIds)
    .whereNull('webhook_endpoints.disabled_at')
    .select('webhook_endpoints.dealer_id', 'wallets.currency');
  return { dealers: new Set(rows.map((r) => Number(r.dealer_id))), currency: rows[0]?.currency ?? '' };
}
