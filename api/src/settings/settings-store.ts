import type { Knex } from 'knex';
import { toDbTime } from '../database/time.ts';
import { openSecret, sealSecret } from './secret-box.ts';

export type SettingsGroup = 'company' | 'mail' | 'money';
export type SettingsValues = Record<string, string | null>;

/** One group's keys as stored (encrypted values opened; unreadable ones read as null). */
export async function readGroup(db: Knex | Knex.Transaction, group: SettingsGroup): Promise<SettingsValues> {
  const rows: { key: string; value: string | null; is_encrypted: number | boolean }[] = await db('settings')
    .where({ group })
    .select('key', 'value', 'is_encrypted');
  const values: SettingsValues = {};
  for (const r of rows) values[r.key] = r.value !== null && r.is_encrypted ? openSecret(r.value) : r.value;
  return values;
}

/**
 * Writes the given keys of one group (others untouched). An upsert on (group, key), so two saves
 * at once never collide on the unique key; `secret` keys are sealed before they reach the table.
 */
export async function writeGroup(
  db: Knex | Knex.Transaction,
  group: SettingsGroup,
  values: SettingsValues,
  secret: ReadonlySet<string> = new Set(),
): Promise<void> {
  const now = toDbTime();
  const rows = Object.entries(values).map(([key, value]) => ({
    group,
    key,
    value: value !== null && secret.has(key) ? sealSecret(value) : value,
    is_encrypted: secret.has(key) && value !== null,
    created_at: now,
    updated_at: now,
  }));
  if (!rows.length) return;
  await db('settings').insert(rows).onConflict(['group', 'key']).merge(['value', 'is_encrypted', 'updated_at']);
}
