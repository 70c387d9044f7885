import type { Knex } from 'knex';
import { foreignId, money, softDeletes, status, timestamps } from '../schema-helpers.ts';

// Operators, their categories and bundles, and each dealer's selection of them with its prices
// (docs/data-model.md). Prices are integer minor units.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('providers', (t) => {
    t.increments('id');
    t.string('name', 191).notNullable();
    t.string('code', 64).notNullable().unique();
    t.string('logo_path', 500).nullable();
    status(t);
    t.integer('sort_order').notNullable().defaultTo(0);
    t.text('phone_prefixes').nullable(); // JSON array of prefixes, e.g. ["61","77"]
    t.string('adapter_key', 64).notNullable().defaultTo('sandbox');
    timestamps(t);
    softDeletes(t);
    t.index(['status', 'sort_order']);
    t.index(['name']);
  });

  await knex.schema.createTable('categories', (t) => {
    t.increments('id');
    foreignId(t, 'provider_id', 'providers');
    t.string('name', 191).notNullable();
    t.string('description', 500).nullable();
    status(t);
    t.integer('sort_order').notNullable().defaultTo(0);
    timestamps(t);
    softDeletes(t);
    t.index(['provider_id', 'status', 'sort_order']);
  });

  await knex.schema.createTable('bundles', (t) => {
    t.increments('id');
    foreignId(t, 'category_id', 'categories');
    t.string('name', 191).notNullable();
    t.integer('data_volume_mb').unsigned().nullable(); // null: unlimited
    t.integer('validity_days').unsigned().notNullable().defaultTo(1);
    money(t, 'cost_price');
    money(t, 'selling_price');
    t.string('operator_product_code', 64).nullable();
    status(t);
    t.integer('sort_order').notNullable().defaultTo(0);
    timestamps(t);
    softDeletes(t);
    t.index(['category_id', 'status', 'sort_order']);
    t.index(['name']);
  });

  await knex.schema.createTable('dealer_providers', (t) => {
    t.increments('id');
    foreignId(t, 'dealer_id', 'users', { onDelete: 'CASCADE' });
    foreignId(t, 'provider_id', 'providers', { onDelete: 'CASCADE' });
    status(t);
    t.integer('sort_order').notNullable().defaultTo(0);
    timestamps(t);
    softDeletes(t);
    t.unique(['dealer_id', 'provider_id']);
  });

  await knex.schema.createTable('dealer_categories', (t) => {
    t.increments('id');
    foreignId(t, 'dealer_id', 'users', { onDelete: 'CASCADE' });
    foreignId(t, 'category_id', 'categories', { onDelete: 'CASCADE' });
    status(t);
    t.integer('sort_order').notNullable().defaultTo(0);
    timestamps(t);
    softDeletes(t);
    t.unique(['dealer_id', 'category_id']);
  });

  await knex.schema.createTable('dealer_bundles', (t) => {
    t.increments('id');
    foreignId(t, 'dealer_id', 'users', { onDelete: 'CASCADE' });
    foreignId(t, 'bundle_id', 'bundles', { onDelete: 'CASCADE' });
    t.bigInteger('selling_price').nullable(); // null: the bundle's default selling price
    status(t);
    t.integer('sort_order').notNullable().defaultTo(0);
    timestamps(t);
    softDeletes(t);
    t.unique(['dealer_id', 'bundle_id']);
  });

  await knex.schema.createTable('banners', (t) => {
    t.increments('id');
    foreignId(t, 'dealer_id', 'users', { nullable: true, onDelete: 'CASCADE' }); // null: every storefront
    t.string('title', 191).notNullable();
    t.string('image_path', 500).notNullable();
    t.string('link_url', 500).nullable();
    t.integer('sort_order').notNullable().defaultTo(0);
    status(t);
    timestamps(t);
    softDeletes(t);
    t.index(['dealer_id', 'status', 'sort_order']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['banners', 'dealer_bundles', 'dealer_categories', 'dealer_providers', 'bundles', 'categories', 'providers']) {
    await knex.schema.dropTable(table);
  }
}
