import type { Knex } from 'knex';
import { nationalNumber, parseTranslations, translatedText } from '@app/contracts';
import { appUrlOf } from '../config.ts';
import { toDbTime } from '../database/time.ts';
import { onCommit } from '../database/unit-of-work.ts';
import { LANGUAGES, translator, type Language } from '../i18n/server-i18n.ts';
import type { RechargeRow } from '../recharges/recharge-rows.ts';
import { customerOutcome } from '../recharges/recharge.service.ts';
import { smsReceiptsOn, wakeSms } from './sms-config.ts';

/**
 * The SMS receipt's outbox row (docs/integrations.md, "SMS receipts"), written by raiseSaleEvent
 * (sale-events.ts) in the transaction of the sale's change, like the webhook events: a receipt
 * exists exactly when the change committed, and is sent afterwards by the dispatcher
 * (sms-dispatcher.ts). One per sale and outcome (sms_messages' unique key): a change raised twice
 * writes nothing the second time. None for a test-mode sale, a dealer with receipts off, or while
 * this process has no SMS settings (sms-config.ts).
 */
type Db = Knex | Knex.Transaction;
/** `returned`: a failed sale's money came back after the failure's receipt (sale.money_returned). */
export type ReceiptKind = 'delivered' | 'failed' | 'returned';

/** The sale events that send a receipt, and which. */
const RECEIPT_OF: Partial<Record<string, ReceiptKind>> = {
  'sale.completed': 'delivered',
  'sale.failed': 'failed',
  'sale.refunded': 'failed',
  'sale.money_returned': 'returned',
};

/** +252 and the national number (Africa's Talking wants the international form); null when it is not a Somali mobile. */
export function internationalNumber(phone: string | null | undefined): string | null {
  const n = phone ? nationalNumber(phone) : null;
  return n ? `+252${n}` : null;
}

/** The link to the sale's order page on the storefront (APP_URL; none without it: a relative link means nothing in an SMS). */
export function orderLink(dealerCode: string, reference: string): string | null {
  const base = appUrlOf();
  return base ? `${base}/dealer/${encodeURIComponent(dealerCode)}/order/${encodeURIComponent(reference)}` : null;
}

const languageOf = (v: unknown): Language => ((LANGUAGES as readonly string[]).includes(String(v)) ? (v as Language) : 'en');

/** The receipt's words in the customer's language: the outcome, the reference, the bundle, the money (customerOutcome), the link. */
export function receiptText(kind: ReceiptKind, r: RechargeRow, shop: { name: string; dealer_code: string }, language: Language): string {
  const t = translator(language);
  const vars = { shop: shop.name, bundle: r.bundle_name, reference: r.reference ?? '', phone: r.phone };
  // A failure says what happened to the money, in the words the order page uses for it.
  const parts =
    kind === 'delivered'
      ? [t('api:sms.receipt.delivered', vars)]
      : kind === 'returned'
        ? [t('api:sms.receipt.returned', vars)]
        : [t('api:sms.receipt.failed', vars), t(`api:sms.money.${customerOutcome(r).money}`)];
  const link = r.reference ? orderLink(shop.dealer_code, r.reference) : null;
  if (link) parts.push(t('api:sms.receipt.link', { url: link }));
  return parts.join(' ').slice(0, 480);
}

/** After a sale's change, in its transaction: the receipt it calls for, if any. */
export async function enqueueReceipt(db: Db, rechargeId: number, event: string): Promise<void> {
  const kind = RECEIPT_OF[event];
  if (!kind || !smsReceiptsOn()) return;
  const r:
    | (RechargeRow & {
        account_name: string;
        company_name: string | null;
        shop_translations: unknown;
        bundle_translations: unknown;
        dealer_code: string;
        sms_receipts: unknown;
        language?: string | null;
      })
    | undefined = await db('recharges')
    .join('users', 'users.id', 'recharges.dealer_id')
    .leftJoin('dealer_details', 'dealer_details.user_id', 'users.id')
    .leftJoin('bundles', 'bundles.id', 'recharges.bundle_id')
    .where('recharges.id', rechargeId)
    .first(
      'recharges.*',
      'users.name as account_name',
      'dealer_details.company_name',
      'dealer_details.translations as shop_translations',
      'bundles.translations as bundle_translations',
      'users.dealer_code',
      'users.sms_receipts',
    );
  if (!r || r.mode === 'test' || !r.sms_receipts || Number(r.sms_receipts) === 0) return;
  const phone = internationalNumber(r.payer_phone) ?? internationalNumber(r.phone);
  if (!phone) return;
  const language = languageOf(r.language);
  // The names the customer saw on the storefront: the shop's and the bundle's, in its language.
  const shopName = translatedText(parseTranslations(r.shop_translations), language, 'company_name', r.company_name || r.account_name);
  const bundleName = translatedText(parseTranslations(r.bundle_translations), language, 'name', r.bundle_name);
  const now = toDbTime();
  await db('sms_messages')
    .insert({
      recharge_id: r.id,
      dealer_id: r.dealer_id,
      kind,
      phone,
      language,
      message: receiptText(kind, { ...r, bundle_name: bundleName }, { name: shopName, dealer_code: r.dealer_code }, language),
      status: 'pending',
      attempts: 0,
      created_at: now,
      updated_at: now,
    })
    .onConflict(['recharge_id', 'kind'])
    .ignore();
  onCommit(() => wakeSms());
}
