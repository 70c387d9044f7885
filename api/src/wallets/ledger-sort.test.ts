import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PNG_1PX, type Harness } from '../../../tests/api/harness.ts';

/**
 * The ledger and the sales list sort by date, either way round, on the server
 * (sort=created_at&order=asc|desc): the console's Date column is clickable.
 */
let h: Harness;
let root: string;
let walletId: number;
let dealerToken: string;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  const res = await h
    .http()
    .post('/api/v1/users')
    .set(bearer(root))
    .field('name', 'Dealer Sort')
    .field('email', 'sort@test.example')
    .field('password', 'Secret@1234')
    .field('password_confirmation', 'Secret@1234')
    .field('user_type', 'dealer')
    .field('dealer_code', 'SORT1')
    .attach('dealer_logo', PNG_1PX, 'l.png');
  expect(res.status).toBe(201);
  walletId = (await h.knex('wallets').where({ dealer_id: res.body.data.id }).first()).id;
  dealerToken = await h.login('sort@test.example', 'Secret@1234');
  for (const [i, amount] of ['1.00', '2.00', '3.00'].entries())
    expect(
      (
        await h
          .http()
          .post(`/api/v1/wallets/${walletId}/top-up`)
          .set(bearer(root))
          .send({ amount, reference: `SORT-${i}` })
      ).status,
    ).toBe(200);
  // Dates that disagree with the ids: the sort must read the date.
  const ids: number[] = await h.knex('wallet_transactions').where({ wallet_id: walletId }).orderBy('id').pluck('id');
  const days = ['2026-03-01 10:00:00.000', '2026-01-01 10:00:00.000', '2026-02-01 10:00:00.000'];
  for (const [i, id] of ids.entries()) await h.knex('wallet_transactions').where({ id }).update({ created_at: days[i] });
});
afterAll(() => h.close());

const refs = (body: { data: { reference: string }[] }) => body.data.map((t) => t.reference);

describe('sorting by date', () => {
  it('the ledger: oldest first with order=asc, newest first with order=desc, for staff and for the dealer', async () => {
    for (const token of [root, dealerToken]) {
      const asc = await h.http().get('/api/v1/wallet-transactions').query({ sort: 'created_at', order: 'asc' }).set(bearer(token));
      expect(asc.status).toBe(200);
      expect(refs(asc.body)).toEqual(['SORT-1', 'SORT-2', 'SORT-0']);
      const desc = await h.http().get('/api/v1/wallet-transactions').query({ sort: 'created_at', order: 'desc' }).set(bearer(token));
      expect(refs(desc.body)).toEqual(['SORT-0', 'SORT-2', 'SORT-1']);
    }
    // By id (the default) is still the order they were written in.
    const byId = await h.http().get('/api/v1/wallet-transactions').query({ sort: 'id', order: 'asc' }).set(bearer(root));
    expect(refs(byId.body)).toEqual(['SORT-0', 'SORT-1', 'SORT-2']);
    const unknown = await h.http().get('/api/v1/wallet-transactions').query({ sort: 'amount' }).set(bearer(root));
    expect(unknown.status).toBe(422);
  });

  it('the sales list takes sort=created_at both ways', async () => {
    for (const order of ['asc', 'desc']) {
      const res = await h.http().get('/api/v1/recharges').query({ sort: 'created_at', order }).set(bearer(root));
      expect(res.status).toBe(200);
      expect(res.body.meta.total).toBe(0);
    }
  });
});
