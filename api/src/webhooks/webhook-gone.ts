import type { Knex } from 'knex';
import { toDbTime } from '../database/time.ts';
import { unitOfWork } from '../database/unit-of-work.ts';
import { translator } from '../i18n/server-i18n.ts';
import { serviceLog } from '../platform/logger.ts';
import { appUrlOf } from '../config.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { readMailServer, sendMail } from '../settings/mail-settings.ts';

/**
 * 410 Gone (Standard Webhooks): the receiver says the endpoint is no more. It is disabled (why and
 * when kept on its row), the events still waiting for it are failed with it (nothing is sent to a
 * disabled endpoint, and none are written for it: the dealer resends what it needs from the log once
 * it sets its URL again), and the dealer is emailed once.
 */
export const GONE_ANSWER = 'The endpoint answered 410 Gone and was disabled.';

/**
 * Disables the endpoint (still at `url`, not saved since `readAt`, when the attempt read it) and
 * fails what waits for it; true for the caller that disabled it.
 */
export async function disableGone(db: Knex, endpointId: number, url: string, now: number, readAt: number = now): Promise<boolean> {
  return unitOfWork(async (trx) => {
    const at = toDbTime(new Date(now));
    // Its URL changed since the POST (the dealer moved it), or the dealer saved it again (enabled it
    // after an earlier 410) while this POST was under way: the endpoint answering now is not the one gone.
    const disabled = await trx('webhook_endpoints')
      .where({ id: endpointId, url })
      .where('updated_at', '<=', toDbTime(new Date(readAt)))
      .whereNull('disabled_at')
      .update({ disabled_at: at, disabled_reason: 'gone', updated_at: at });
    if (!disabled) return false;
    const { dealer_id: dealerId }: { dealer_id: number } = await trx('webhook_endpoints').where({ id: endpointId }).first('dealer_id');
    await trx('webhook_events')
      .where({ dealer_id: dealerId, status: 'pending' })
      // One being sent now is recorded by its own attempt.
      .where((w) => w.whereNull('claimed_until').orWhere('claimed_until', '<', at))
      .update({ status: 'failed', next_attempt_at: null, last_answer: GONE_ANSWER, updated_at: at });
    return true;
  }, db);
}

/**
 * Emails the dealer that its endpoint was disabled, through the saved mail server, in the company's
 * language (the product keeps none per dealer, as the low-balance alert). Never throws.
 */
export async function tellDealerGone(db: Knex, dealerId: number): Promise<void> {
  try {
    const endpoint = await db('webhook_endpoints')
      .join('users', 'users.id', 'webhook_endpoints.dealer_id')
      .where('webhook_endpoints.dealer_id', dealerId)
      .first('webhook_endpoints.url', 'webhook_endpoints.disabled_at', 'users.name', 'users.email');
    if (!endpoint?.disabled_at) return;
    const server = await readMailServer(db);
    if (!server || !endpoint.email) {
      serviceLog.warn({ dealer: dealerId }, server ? 'webhook disabled: the dealer has no email address' : 'webhook disabled: the mail settings are not saved');
      return;
    }
    const company = await readCompanySettings(db);
    const t = translator('en');
    const vars = { company: company.company_name, name: endpoint.name, url: endpoint.url, link: `${appUrlOf()}/webhooks` };
    await sendMail(server, { to: endpoint.email, subject: t('api:webhooks.disabled_mail_subject', vars), text: t('api:webhooks.disabled_mail_body', vars) });
  } catch (err) {
    serviceLog.warn({ err, dealer: dealerId }, 'webhook disabled: email not sent');
  }
}
