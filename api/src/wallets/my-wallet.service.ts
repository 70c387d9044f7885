import type { z } from 'zod';
import type { myWalletResponseSchema, WalletResponse } from '@app/contracts';
import { transact, type ServiceContext } from '../platform/context.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { dailySeries, findWallet, ownWallet, presentTransaction, presentWallet, setLowBalanceThreshold, transactionQuery } from './wallet.service.ts';
import { missedSalesToday } from './missed-sales.ts';
import type { WalletTransactionListRow } from './wallet-rows.ts';

/**
 * /my-wallet: the signed-in dealer's own wallet. Figures stay integer minor units until they are
 * presented (formatMinor): the daily series is replayed from the stored balance, never from its
 * formatted text.
 */
export type MyWallet = z.input<typeof myWalletResponseSchema>;

/** The dealer's wallet, its latest 10 ledger rows, the last 30 days, pending requests and today's missed sales. */
export async function myWallet(ctx: ServiceContext): Promise<MyWallet> {
  const wallet = await ownWallet(ctx);
  const { timezone } = await readCompanySettings(ctx.db);
  const latest: WalletTransactionListRow[] = await transactionQuery(ctx.db)
    .where('wallet_transactions.wallet_id', wallet.id)
    .orderBy('wallet_transactions.id', 'desc')
    .limit(10);
  const pending = await ctx.db('wallet_top_up_requests').where({ wallet_id: wallet.id, status: 'pending' }).count({ n: '*' }).first();
  return {
    wallet: presentWallet(wallet),
    transactions: latest.map(presentTransaction),
    days: await dailySeries(ctx.db, wallet.id, Number(wallet.balance), timezone),
    pending_top_ups: Number((pending as { n: number | string }).n),
    missed_sales_today: await missedSalesToday(ctx.db, wallet.dealer_id, timezone),
  };
}

/** The dealer sets (or with null clears) its own low-balance alert; answers its wallet as it now is. */
export async function setOwnLowBalanceThreshold(ctx: ServiceContext, threshold: number | null): Promise<WalletResponse> {
  const wallet = await ownWallet(ctx);
  await transact(ctx, (tctx) => setLowBalanceThreshold(tctx, wallet.id, threshold));
  return findWallet(ctx, wallet.id);
}
