import type { Knex } from 'knex';
import { foreignId, softDeletes, status, timestamps } from '../schema-helpers.ts';

// Company and mail settings as key/value rows per group, storefront contacts, and areas.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('settings', (t) => {
    t.increments('id');
    t.string('group', 64).notNullable();
    t.string('key', 128).notNullable();
    t.text('value').nullable();
    t.boolean('is_encrypted').notNullable().defaultTo(false); // e.g. the SMTP password
    timestamps(t);
    t.unique(['group', 'key']);
  });

  await knex.schema.createTable('contacts', (t) => {
    t.increments('id');
    foreignId(t, 'dealer_id', 'users', { nullable: true, onDelete: 'CASCADE' });
    t.string('type', 16).notNullable(); // phone, whatsapp, email, address
    t.string('label', 191).nullable();
    t.string('value', 500).notNullable();
    t.integer('sort_order').notNullable().defaultTo(0);
    status(t);
    timestamps(t);
    softDeletes(t);
    t.index(['dealer_id', 'status']);
  });

  await knex.schema.createTable('areas', (t) => {
    t.increments('id');
    foreignId(t, 'parent_id', 'areas', { nullable: true, onDelete: 'RESTRICT' });
    t.string('name', 191).notNullable();
    t.string('type', 16).notNullable().defaultTo('city'); // region | city | district
    status(t);
    timestamps(t);
    softDeletes(t);
    t.index(['parent_id']);
    t.index(['name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('areas');
  await knex.schema.dropTable('contacts');
  await knex.schema.dropTable('settings');
}
