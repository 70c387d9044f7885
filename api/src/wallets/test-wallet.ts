import { formatMinor, TEST_WALLET_BALANCE } from '@app/contracts';
import { isUniqueViolation } from '../database/db-errors.ts';
import { toDbTime } from '../database/time.ts';
import { transact, type ServiceContext } from '../platform/context.ts';
import { credit, debit } from './ledger.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { readCompanySettings } from '../settings/company-settings.ts';

/**
 * A dealer's test wallet (docs/api-conventions.md, "Test mode"): what a `rk_test_` key's sales are
 * paid from. A row of `wallets` with mode `test` beside the live one (unique per dealer and mode),
 * so the ledger's rules hold in the sandbox too (no overdraft, a row per change), while every reader
 * of live money names mode `live` and never meets it. It starts with TEST_WALLET_BALANCE, credited
 * as an adjustment, and can be reset to it (resetTestWallet). Its currency is the live wallet's.
 */
const OPENING_NOTE = 'Test wallet: sandbox money for test keys, never live money.';

/** The dealer's test wallet id, made (with its opening credit) the first time; two callers at once make one. */
export async function ensureTestWallet(ctx: ServiceContext, dealerId: number): Promise<number> {
  const found = await ctx.db('wallets').where({ dealer_id: dealerId, mode: 'test' }).first('id');
  if (found) return Number(found.id);
  try {
    return await transact(ctx, async (tctx) => {
      // The live wallet's currency, which is the company's (docs/decisions.md, "One currency").
      const live = await tctx.db('wallets').where({ dealer_id: dealerId, mode: 'live' }).first('currency');
      const now = toDbTime();
      const [inserted] = await tctx.db('wallets').insert({
        dealer_id: dealerId,
        mode: 'test',
        balance: 0,
        currency: live?.currency ?? (await readCompanySettings(tctx.db)).currency,
        created_at: now,
        updated_at: now,
      });
      const id = typeof inserted === 'object' ? Number((inserted as { id: number }).id) : Number(inserted);
      await credit(tctx, id, { kind: 'adjustment', amount: TEST_WALLET_BALANCE, note: OPENING_NOTE });
      return id;
    });
  } catch (err) {
    // Made at the same moment by another call: read it (committed, so visible outside a transaction;
    // callers never hold one here, since a transaction's snapshot on MySQL would not see it).
    if (!isUniqueViolation(err)) throw err;
    const made = await ctx.db('wallets').where({ dealer_id: dealerId, mode: 'test' }).first('id');
    if (!made) throw err;
    return Number(made.id);
  }
}

/**
 * Puts the test wallet back to TEST_WALLET_BALANCE with one adjustment row (a credit or a debit for
 * the difference; nothing when it is there already). The wallet's row lock orders it with the
 * test sales paying from it at the same moment.
 */
export async function resetTestWallet(ctx: ServiceContext, dealerId: number): Promise<number> {
  const walletId = await ensureTestWallet(ctx, dealerId);
  await transact(ctx, async (tctx) => {
    const row: { balance: number | string } = await tctx.db('wallets').where({ id: walletId }).forUpdate().first('balance');
    const before = Number(row.balance);
    const difference = TEST_WALLET_BALANCE - before;
    if (difference === 0) return;
    const entry = { kind: 'adjustment' as const, amount: Math.abs(difference), note: 'Test wallet reset to its starting balance.' };
    if (difference > 0) await credit(tctx, walletId, entry);
    else await debit(tctx, walletId, entry);
    await recordActivity(tctx, {
      action: 'test_wallet_reset',
      subjectType: 'wallet',
      subjectId: walletId,
      // Amounts as people read them (the log shows them as they are written).
      before: { balance: formatMinor(before) },
      after: { balance: formatMinor(TEST_WALLET_BALANCE) },
    });
  });
  return walletId;
}
