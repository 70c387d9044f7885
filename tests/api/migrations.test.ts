import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, TEST_DATABASE, type Harness } from './harness.ts';
import { ALL_PERMISSIONS } from '@app/contracts';
import { runSeeds } from '../../db/migration-source.ts';
import { isUniqueViolation, violatedConstraint } from '../../api/src/database/db-errors.ts';
import { bankReferenceKey } from '../../api/src/wallets/idempotency.ts';

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

  it('give old top-ups and pending requests their bank reference keys, the first of each duplicate only (20261127A)', async () => {
    const name = '20261127A-wallet-bank-references.ts';
    await h.knex.migrate.down({ name });
    expect(await h.knex.schema.hasColumn('wallet_transactions', 'bank_reference_key')).toBe(false);
    expect(await h.knex.schema.hasColumn('wallet_top_up_requests', 'pending_reference_key')).toBe(false);
    const now = '2026-11-22 10:00:00.000';
    const walletOf = async (code: string) => {
      await h
        .knex('users')
        .insert({ name: code, email: `${code}@x.so`, password: 'x', user_type: 'dealer', dealer_code: code, created_at: now, updated_at: now });
      const dealer = await h.knex('users').where({ dealer_code: code }).first('id');
      await h.knex('wallets').insert({ dealer_id: dealer.id, balance: 0, created_at: now, updated_at: now });
      return { dealerId: dealer.id as number, walletId: (await h.knex('wallets').where({ dealer_id: dealer.id }).first('id')).id as number };
    };
    const a = await walletOf('OLD1');
    const b = await walletOf('OLD2');
    // Data written before the rule: a transfer credited twice, spelled differently, and so on.
    const ledger: [number, string, string | null][] = [
      [a.walletId, 'top_up', 'EVC-1'],
      [a.walletId, 'top_up', ' evc-1 '],
      [a.walletId, 'adjustment', 'EVC-2'],
      [a.walletId, 'top_up', 'Café 9'],
      [a.walletId, 'top_up', 'CAFÉ 9'],
      [b.walletId, 'top_up', 'EVC-1'],
      [a.walletId, 'top_up', null],
    ];
    for (const [walletId, kind, reference] of ledger) {
      await h
        .knex('wallet_transactions')
        .insert({ wallet_id: walletId, type: 'credit', kind, amount: 100, balance_before: 0, balance_after: 100, reference, created_at: now });
    }
    const requests: [string, string][] = [
      ['pending', 'EVC-P'],
      ['pending', 'evc-p'],
      ['rejected', 'EVC-Q'],
      ['pending', 'EVC-1'],
    ];
    for (const [status, reference] of requests) {
      await h
        .knex('wallet_top_up_requests')
        .insert({ wallet_id: a.walletId, dealer_id: a.dealerId, amount: 100, reference, status, created_at: now, updated_at: now });
    }
    await h.knex.migrate.up({ name });
    const ledgerKeys = (await h.knex('wallet_transactions').orderBy('id').select('bank_reference_key')).map(
      (r: { bank_reference_key: string | null }) => r.bank_reference_key,
    );
    expect(ledgerKeys).toEqual(['evc-1', null, null, bankReferenceKey('Café 9'), null, 'evc-1', null]);
    expect(ledgerKeys[3]).toMatch(/^sha256:[0-9a-f]{64}$/);
    const requestKeys = (await h.knex('wallet_top_up_requests').orderBy('id').select('pending_reference_key')).map(
      (r: { pending_reference_key: string | null }) => r.pending_reference_key,
    );
    expect(requestKeys).toEqual(['evc-p', null, null, 'evc-1']);
    // From now on the database itself refuses a second credit or pending request of a reference, and
    // names the index as the API expects on both engines.
    const secondCredit = await h
      .knex('wallet_transactions')
      .insert({
        wallet_id: a.walletId,
        type: 'credit',
        kind: 'top_up',
        amount: 1,
        balance_before: 0,
        balance_after: 1,
        reference: 'evc-1',
        bank_reference_key: 'evc-1',
        created_at: now,
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(isUniqueViolation(secondCredit)).toBe(true);
    expect(violatedConstraint(secondCredit)).toBe('wallet_transactions_wallet_id_bank_reference_key_unique');
    const secondRequest = await h
      .knex('wallet_top_up_requests')
      .insert({
        wallet_id: a.walletId,
        dealer_id: a.dealerId,
        amount: 1,
        reference: 'EVC-P',
        status: 'pending',
        pending_reference_key: 'evc-p',
        created_at: now,
        updated_at: now,
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(isUniqueViolation(secondRequest)).toBe(true);
    expect(violatedConstraint(secondRequest)).toBe('wallet_top_up_requests_pending_reference_key_wallet_id_unique');
    await h.knex('wallet_top_up_requests').delete();
    await h.knex('wallet_transactions').delete();
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
