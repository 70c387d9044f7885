import type { Knex } from 'knex';
import { DEFAULT_MONEY_LIMITS, formatMinor, MAX_MONEY_LIMIT_MINOR, type MoneyLimitsInput, type MoneyLimitsResponse } from '@app/contracts';
import { readGroup, writeGroup } from './settings-store.ts';
import { readCompanySettings } from './company-settings.ts';

/**
 * The ceilings on money (settings group `money`, cents): the most one admin operation may move
 * (a top-up, an adjustment credit, a top-up request) and the highest balance an admin's credit
 * may reach. Sales, refunds and profit credits are bounded only by the ledger's own safety net
 * (MAX_MONEY_LIMIT_MINOR), so a ceiling lowered later never blocks money owed to a dealer.
 */
export interface MoneyLimits {
  max_operation: number;
  max_balance: number;
}

const cents = (v: string | null | undefined, fallback: number) => {
  const n = v === null || v === undefined ? NaN : Number(v);
  return Number.isSafeInteger(n) && n > 0 ? Math.min(n, MAX_MONEY_LIMIT_MINOR) : fallback;
};

export async function readMoneyLimits(db: Knex | Knex.Transaction): Promise<MoneyLimits> {
  const v = await readGroup(db, 'money');
  return { max_operation: cents(v.max_operation, DEFAULT_MONEY_LIMITS.max_operation), max_balance: cents(v.max_balance, DEFAULT_MONEY_LIMITS.max_balance) };
}

export async function presentMoneyLimits(db: Knex | Knex.Transaction): Promise<MoneyLimitsResponse> {
  const limits = await readMoneyLimits(db);
  const company = await readCompanySettings(db);
  return {
    max_operation: formatMinor(limits.max_operation),
    max_balance: formatMinor(limits.max_balance),
    max_allowed: formatMinor(MAX_MONEY_LIMIT_MINOR),
    currency: company.currency,
  };
}

export async function writeMoneyLimits(db: Knex | Knex.Transaction, input: MoneyLimitsInput): Promise<void> {
  await writeGroup(db, 'money', { max_operation: String(input.max_operation), max_balance: String(input.max_balance) });
}
