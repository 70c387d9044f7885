import type { Knex } from 'knex';

/**
 * One rule for letter case on both engines (docs/data-model.md):
 * - Dealer codes are case-insensitive: `qaran` and `QARAN` are one shop. MariaDB's
 *   utf8mb4_unicode_ci index already says so; SQLite's index compared bytes, so it is rebuilt
 *   with COLLATE NOCASE (refused, naming the codes, if two dealers already differ only by case).
 * - Purchase idempotency keys are case-sensitive: `abc12345` and `ABC12345` are two purchases.
 *   SQLite already says so; MariaDB's columns become utf8mb4_bin.
 */
const mysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  if (mysql(knex)) {
    await knex.raw('ALTER TABLE recharges MODIFY idempotency_key VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL');
    await knex.raw('ALTER TABLE missed_sales MODIFY idempotency_key VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL');
    return;
  }
  const clashes: { code: string }[] = await knex('users')
    .whereNotNull('dealer_code')
    .groupByRaw('LOWER(dealer_code)')
    .havingRaw('COUNT(*) > 1')
    .select(knex.raw('GROUP_CONCAT(dealer_code) AS code'));
  if (clashes.length) {
    throw new Error(`Dealer codes that differ only by letter case must be renamed first: ${clashes.map((c) => c.code).join('; ')}`);
  }
  await knex.raw('DROP INDEX IF EXISTS users_dealer_code_unique');
  await knex.raw('CREATE UNIQUE INDEX users_dealer_code_unique ON users (dealer_code COLLATE NOCASE)');
}

export async function down(knex: Knex): Promise<void> {
  if (mysql(knex)) {
    await knex.raw('ALTER TABLE recharges MODIFY idempotency_key VARCHAR(128) NOT NULL');
    await knex.raw('ALTER TABLE missed_sales MODIFY idempotency_key VARCHAR(128) NOT NULL');
    return;
  }
  await knex.raw('DROP INDEX IF EXISTS users_dealer_code_unique');
  await knex.raw('CREATE UNIQUE INDEX users_dealer_code_unique ON users (dealer_code)');
}
