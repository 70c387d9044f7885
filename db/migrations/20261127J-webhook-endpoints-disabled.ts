import type { Knex } from 'knex';

// Standard Webhooks (docs/api-conventions.md, "Webhooks"). An endpoint whose receiver answers
// 410 Gone is disabled: disabled_at and why (disabled_reason: gone); nothing is sent to it until
// its URL is set again. secret_rotated_at is when the current secret was made by a rotation:
// rotations asked within a minute of it answer that same secret (two at once never hand out a
// secret the next one replaced).
const COLUMNS = ['disabled_at', 'disabled_reason', 'secret_rotated_at'] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_endpoints', (t) => {
    t.datetime('disabled_at', { precision: 3 }).nullable();
    t.string('disabled_reason', 16).nullable();
    t.datetime('secret_rotated_at', { precision: 3 }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'mysql2') {
    await knex.schema.alterTable('webhook_endpoints', (t) => t.dropColumns(...COLUMNS));
    return;
  }
  // SQLite drops a plain column in place (see 20261127F's down).
  for (const column of COLUMNS) await knex.raw('ALTER TABLE ?? DROP COLUMN ??', ['webhook_endpoints', column]);
}
