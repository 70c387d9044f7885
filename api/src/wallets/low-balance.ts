import type { Knex } from 'knex';
import { formatMinor } from '@app/contracts';
import { toDbTime } from '../database/time.ts';
import { rootKnex, unitOfWork } from '../database/unit-of-work.ts';
import { enqueueWebhookEvent } from '../webhooks/webhook-events.ts';
import { recordActivity } from '../activity-log/activity-log.ts';
import { translator } from '../i18n/server-i18n.ts';
import { serviceLog } from '../platform/logger.ts';
import { appUrlOf } from '../config.ts';
import type { ServiceContext } from '../platform/context.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { readMailServer, sendMail } from '../settings/mail-settings.ts';

/**
 * The dealer's low-balance alert (docs/data-model.md, Wallets and the ledger). A dealer (or an
 * admin for it) sets `wallets.low_balance_threshold`; when a debit leaves the balance below it,
 * the dealer gets ONE email, and the next one only after a credit has brought the balance back to
 * the threshold (the ledger clears `low_balance_notified_at` then, in the credit's transaction).
 */

/** Where the email's link points: APP_URL (the console's public address) + /my-wallet, else the bare path. */
function myWalletLink(): string {
  return `${appUrlOf()}/my-wallet`;
}

const completed = (db: Knex | Knex.Transaction) => (db as Knex.Transaction).isTransaction === true && (db as Knex.Transaction).isCompleted();

/**
 * Call AFTER a debit has committed (a sale, an admin's debit). When the wallet is below its
 * threshold and the dealer has not been told yet, claims the alert with one conditional UPDATE
 * (of any number of callers at once, exactly one wins) and emails the dealer through the saved
 * mail server. Never throws: a mail server missing or refusing is logged (and written in the
 * activity log), never the caller's problem.
 */
export async function noticeLowBalance(ctx: ServiceContext, walletId: number): Promise<void> {
  try {
    const db = completed(ctx.db) ? rootKnex() : ctx.db;
    // A cheap read first: most debits leave the balance above the threshold, or the alert already sent.
    const state = await db('wallets').where({ id: walletId }).first('balance', 'low_balance_threshold', 'low_balance_notified_at', 'dealer_id', 'currency');
    if (
      !state ||
      state.low_balance_threshold === null ||
      state.low_balance_notified_at !== null ||
      Number(state.balance) >= Number(state.low_balance_threshold)
    )
      return;
    // The claim and the dealer's webhook event (outbox) commit together: one event per crossing.
    const won = await unitOfWork(async (trx) => {
      const claimed = await trx('wallets')
        .where({ id: walletId })
        .whereNull('low_balance_notified_at')
        .whereNotNull('low_balance_threshold')
        .whereRaw('balance < low_balance_threshold')
        .update({ low_balance_notified_at: toDbTime() });
      if (claimed === 1) {
        const now: { balance: number | string } = await trx('wallets').where({ id: walletId }).first('balance');
        await enqueueWebhookEvent(trx, state.dealer_id, 'wallet.low_balance', {
          balance: formatMinor(Number(now.balance)),
          threshold: formatMinor(Number(state.low_balance_threshold)),
          currency: state.currency,
        });
      }
      return claimed;
    }, db);
    if (won !== 1) return;
    await sendAlert({ ...ctx, db }, walletId);
  } catch (err) {
    serviceLog.warn({ err, wallet: walletId }, 'low-balance alert failed');
  }
}

async function sendAlert(ctx: ServiceContext, walletId: number): Promise<void> {
  const wallet = await ctx
    .db('wallets')
    .join('users', 'users.id', 'wallets.dealer_id')
    .where('wallets.id', walletId)
    .first('wallets.balance', 'wallets.currency', 'wallets.low_balance_threshold', 'users.name', 'users.email');
  if (!wallet) return;
  const balance = formatMinor(Number(wallet.balance));
  const threshold = formatMinor(Number(wallet.low_balance_threshold));
  const facts = { balance, threshold, currency: wallet.currency, to: wallet.email };
  const failed = async (reason: string) => {
    serviceLog.warn({ wallet: walletId, reason }, 'low-balance alert not sent');
    await recordActivity(ctx, {
      action: 'low_balance_alert_failed',
      subjectType: 'wallet',
      subjectId: walletId,
      description: `low-balance alert not sent: ${reason}`,
      after: facts,
    });
  };
  const server = await readMailServer(ctx.db);
  if (!server) return failed('the mail settings are not saved');
  if (!wallet.email) return failed('the dealer has no email address');
  const company = await readCompanySettings(ctx.db);
  // The company's language: the product keeps no language per dealer.
  const t = translator('en');
  const vars = { company: company.company_name, name: wallet.name, balance, threshold, currency: wallet.currency, link: myWalletLink() };
  let sent: { messageId: string };
  try {
    sent = await sendMail(server, {
      to: wallet.email,
      subject: t('api:wallets.low_balance_mail_subject', vars),
      text: t('api:wallets.low_balance_mail_body', vars),
    });
  } catch (err) {
    return failed(err instanceof Error ? err.message.slice(0, 300) : String(err));
  }
  await recordActivity(ctx, {
    action: 'low_balance_alert_sent',
    subjectType: 'wallet',
    subjectId: walletId,
    description: `low-balance alert sent to ${wallet.email}`,
    after: { ...facts, message_id: sent.messageId },
  });
}
