import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, TEST_DATABASE, type Harness } from './harness.ts';
import { ALL_PERMISSIONS } from '@app/contracts';
import { runSeeds } from '../../db/migration-source.ts';

const TABLES = [
  'users',
  'dealer_details',
  'roles',
  'permissions',
  'role_permissions',
  'user_roles',
  'sessions',
  'login_attempts',
  'customer_sessions',
  'activity_log',
  'providers',
  'categories',
  'bundles',
  'dealer_providers',
  'dealer_categories',
  'dealer_bundles',
  'banners',
  'wallets',
  'payment_methods',
  'recharges',
  'wallet_transactions',
  'settings',
  'contacts',
  'areas',
];

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe(`migrations and seeds on ${TEST_DATABASE}`, () => {
  it('create the whole data model', async () => {
    for (const table of TABLES) expect(await h.knex.schema.hasTable(table), table).toBe(true);
    expect(await h.knex.schema.hasColumn('wallets', 'balance')).toBe(true);
    expect(await h.knex.schema.hasColumn('recharges', 'idempotency_key')).toBe(true);
    expect(await h.knex.schema.hasColumn('users', 'deleted_at')).toBe(true);
  });

  it('seed every permission and the two protected roles, idempotently', async () => {
    await runSeeds(h.knex); // a second run (start-up runs them every time) adds nothing
    const names = (await h.knex('permissions').select('name')).map((p: { name: string }) => p.name);
    expect(names.sort()).toEqual([...ALL_PERMISSIONS].sort());
    const roles = await h.knex('roles').orderBy('name').select('name', 'guard_name', 'protected');
    expect(roles.map((r: { name: string; guard_name: string; protected: unknown }) => [r.name, r.guard_name, Boolean(r.protected)])).toEqual([
      ['dealer', 'web', true],
      ['super-admin', 'web', true],
    ]);
    const superPerms = await h
      .knex('role_permissions')
      .join('roles', 'roles.id', 'role_permissions.role_id')
      .where('roles.name', 'super-admin')
      .count({ n: '*' })
      .first();
    expect(Number(superPerms?.n)).toBe(ALL_PERMISSIONS.length);
    expect(await h.knex('users').count({ n: '*' }).first()).toMatchObject({ n: 0 }); // SEED_DEMO=false
  });

  it('keep money in integer minor units and refuse a dangling foreign key', async () => {
    const now = '2026-11-22 10:00:00.000';
    await h.knex('users').insert({ name: 'D', email: 'd@x.so', password: 'x', user_type: 'dealer', dealer_code: 'D1', created_at: now, updated_at: now });
    const dealer = await h.knex('users').where({ email: 'd@x.so' }).first();
    await h.knex('wallets').insert({ dealer_id: dealer.id, balance: 9_007_199_254_740, created_at: now, updated_at: now });
    const wallet = await h.knex('wallets').where({ dealer_id: dealer.id }).first();
    expect(Number(wallet.balance)).toBe(9_007_199_254_740);
    await expect(h.knex('wallets').insert({ dealer_id: 999_999, balance: 0, created_at: now, updated_at: now })).rejects.toThrow();
    await h.knex('wallets').delete();
    await h.knex('users').delete();
  });

  it('roll all the way down and up again', async () => {
    await h.knex.migrate.rollback(undefined, true);
    for (const table of TABLES) expect(await h.knex.schema.hasTable(table), table).toBe(false);
    const [, pending] = await h.knex.migrate.list();
    expect(pending.length).toBeGreaterThanOrEqual(5);
    await h.knex.migrate.latest();
    for (const table of TABLES) expect(await h.knex.schema.hasTable(table), table).toBe(true);
  });
});
