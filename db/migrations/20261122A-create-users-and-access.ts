import type { Knex } from 'knex';
import { foreignId, softDeletes, status, timestamps } from '../schema-helpers.ts';

// Users, their dealer branding, and Spatie-style roles and permissions (docs/decisions.md (Access)).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.increments('id');
    t.string('name', 255).notNullable();
    t.string('email', 191).notNullable().unique(); // 191: utf8mb4 index limit on older MySQL
    t.string('password', 255).notNullable();
    t.string('phone', 32).nullable();
    t.string('address', 500).nullable();
    t.string('dealer_code', 64).nullable().unique();
    t.string('user_type', 16).notNullable().defaultTo('admin');
    status(t);
    t.string('profile_image', 500).nullable();
    t.datetime('email_verified_at', { precision: 3 }).nullable();
    t.datetime('last_login_at', { precision: 3 }).nullable();
    timestamps(t);
    softDeletes(t);
    t.index(['user_type', 'status']);
    t.index(['name']);
    t.index(['created_at']);
  });

  await knex.schema.createTable('dealer_details', (t) => {
    t.increments('id');
    foreignId(t, 'user_id', 'users', { onDelete: 'CASCADE' }).unique();
    t.string('brand_color', 16).notNullable().defaultTo('#000000');
    t.string('company_name', 255).nullable();
    t.text('description').nullable();
    t.string('website', 255).nullable();
    t.string('contact_email', 191).nullable();
    t.string('contact_phone', 32).nullable();
    t.string('pricing_model', 16).notNullable().defaultTo('cost');
    t.string('logo_path', 500).nullable();
    timestamps(t);
  });

  await knex.schema.createTable('roles', (t) => {
    t.increments('id');
    t.string('name', 191).notNullable();
    t.string('guard_name', 32).notNullable().defaultTo('web');
    t.string('description', 500).nullable();
    t.boolean('protected').notNullable().defaultTo(false);
    timestamps(t);
    softDeletes(t);
    t.unique(['name', 'guard_name']);
  });

  await knex.schema.createTable('permissions', (t) => {
    t.increments('id');
    t.string('name', 191).notNullable();
    t.string('guard_name', 32).notNullable().defaultTo('web');
    t.string('group', 64).notNullable();
    timestamps(t);
    t.unique(['name', 'guard_name']);
  });

  await knex.schema.createTable('role_permissions', (t) => {
    foreignId(t, 'role_id', 'roles', { onDelete: 'CASCADE' });
    foreignId(t, 'permission_id', 'permissions', { onDelete: 'CASCADE' });
    t.primary(['role_id', 'permission_id']);
    t.index(['permission_id']);
  });

  await knex.schema.createTable('user_roles', (t) => {
    foreignId(t, 'user_id', 'users', { onDelete: 'CASCADE' });
    foreignId(t, 'role_id', 'roles', { onDelete: 'CASCADE' });
    t.primary(['user_id', 'role_id']);
    t.index(['role_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('user_roles');
  await knex.schema.dropTable('role_permissions');
  await knex.schema.dropTable('permissions');
  await knex.schema.dropTable('roles');
  await knex.schema.dropTable('dealer_details');
  await knex.schema.dropTable('users');
}
