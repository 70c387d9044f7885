import type { Knex } from 'knex';
import type { CompanySettings, CompanySettingsInput, CompanySettingsResponse } from '@app/contracts';
import { toDbTime } from '../database/time.ts';
import { fieldError } from '../http/errors.ts';
import type { ServiceContext } from '../platform/context.ts';
import { readGroup, writeGroup } from './settings-store.ts';

/** What a fresh install shows until an admin saves the company settings. */
export const COMPANY_DEFAULTS: CompanySettings = {
  company_name: 'Internet Bundles',
  logo: null,
  address: null,
  phone: null,
  email: null,
  currency: 'USD',
  timezone: 'Africa/Mogadishu',
  footer_text: null,
};

export async function readCompanySettings(db: Knex | Knex.Transaction): Promise<CompanySettings> {
  const v = await readGroup(db, 'company');
  const pick = (k: keyof CompanySettings) => (k in v ? v[k] : COMPANY_DEFAULTS[k]);
  return {
    company_name: pick('company_name') ?? COMPANY_DEFAULTS.company_name,
    logo: pick('logo'),
    address: pick('address'),
    phone: pick('phone'),
    email: pick('email'),
    currency: pick('currency') ?? COMPANY_DEFAULTS.currency,
    timezone: pick('timezone') ?? COMPANY_DEFAULTS.timezone,
    footer_text: pick('footer_text'),
  };
}

export async function writeCompanySettings(db: Knex | Knex.Transaction, input: CompanySettingsInput & { logo?: string | null }): Promise<void> {
  const values: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(input)) if (v !== undefined) values[k] = v === null ? null : String(v);
  await writeGroup(db, 'company', values);
}

/**
 * The currencies live money is in (docs/decisions.md, "One currency"): those of the live wallets
 * with a ledger row, and the latest live sale's. Empty while no money exists. Sandbox money (test
 * wallets and test sales) is not money and locks nothing. `lock` reads with shared locks, so inside
 * a transaction that holds the wallets' rows it sees every ledger row committed before it.
 */
export async function moneyCurrencies(db: Knex | Knex.Transaction, opts: { lock?: boolean } = {}): Promise<string[]> {
  const wallets = db('wallets')
    .where('wallets.mode', 'live')
    .whereExists(db('wallet_transactions').select(db.raw('1')).whereRaw('?? = ??', ['wallet_transactions.wallet_id', 'wallets.id']))
    .distinct('wallets.currency');
  const sale = db('recharges').where('mode', 'live').orderBy('id', 'desc').first('currency');
  if (opts.lock) {
    wallets.forShare();
    sale.forShare();
  }
  const [held, latest]: [{ currency: string }[], { currency: string } | undefined] = await Promise.all([wallets, sale]);
  return [...new Set([...held.map((r) => r.currency), ...(latest ? [latest.currency] : [])])].sort();
}

/** The settings as the console's form reads them: with whether the currency can still change, and why not. */
export async function presentCompanySettings(ctx: ServiceContext): Promise<CompanySettingsResponse> {
  const [settings, money] = await Promise.all([readCompanySettings(ctx.db), moneyCurrencies(ctx.db)]);
  return {
    ...settings,
    currency_locked: money.length > 0,
    currency_locked_reason: money.length ? ctx.t('validation:currency_locked', { currency: money.join(', ') }) : null,
  };
}

/**
 * The first statement of a company save: the wallets' rows, taken for update. A top-up or a second
 * save waits for it, and what the save reads next (the current currency, the money) is what was
 * committed before it; read before the lock, MariaDB's snapshot could be older than the lock and a
 * save could compare against a currency another save had already changed.
 */
export async function holdWallets(db: Knex | Knex.Transaction): Promise<void> {
  await db('wallets').forUpdate().select('id');
}

/**
 * Moves the company currency to `next`, with every wallet, before any money exists; refused (422 on
 * `currency`) once it does, since the amounts would be relabelled, not converted. Call inside the
 * transaction that saves the settings, after holdWallets: a ledger row written at the same moment
 * is either seen (refused) or waits for the new currency.
 */
export async function changeCompanyCurrency(db: Knex | Knex.Transaction, next: string): Promise<void> {
  const money = await moneyCurrencies(db, { lock: true });
  if (money.length) throw fieldError('currency', 'validation:currency_locked', { currency: money.join(', ') });
  await db('wallets').update({ currency: next, updated_at: toDbTime() });
}
