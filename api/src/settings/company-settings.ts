import type { Knex } from 'knex';
import type { CompanySettingsInput, CompanySettingsResponse } from '@app/contracts';
import { readGroup, writeGroup } from './settings-store.ts';

/** What a fresh install shows until an admin saves the company settings. */
export const COMPANY_DEFAULTS: CompanySettingsResponse = {
  company_name: 'Internet Bundles',
  logo: null,
  address: null,
  phone: null,
  email: null,
  currency: 'USD',
  timezone: 'Africa/Mogadishu',
  footer_text: null,
};

export async function readCompanySettings(db: Knex | Knex.Transaction): Promise<CompanySettingsResponse> {
  const v = await readGroup(db, 'company');
  const pick = (k: keyof CompanySettingsResponse) => (k in v ? v[k] : COMPANY_DEFAULTS[k]);
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
