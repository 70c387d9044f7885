import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';

/**
 * A dealer's pricing model decides who pays for its sales: switching it while the wallet holds
 * money is refused unless the request confirms it, so no client can do it silently.
 */
let h: Harness;
let admin: string;

beforeAll(async () => {
  h = await createHarness();
  admin = await h.adminToken();
});
afterAll(() => h.close());

async function dealerWith(code: string, balance: number): Promise<number> {
  const id = await h.insertUser({ name: `Shop ${code}`, email: `${code.toLowerCase()}@pricing.test`, user_type: 'dealer', dealer_code: code }, 'dealer');
  const now = new Date();
  await h.knex('dealer_details').insert({ user_id: id, brand_color: '#000000', pricing_model: 'cost', created_at: now, updated_at: now });
  await h.knex('wallets').insert({ dealer_id: id, mode: 'live', balance, currency: 'USD', created_at: now, updated_at: now });
  return id;
}
const modelOf = async (id: number) => (await h.knex('dealer_details').where({ user_id: id }).first()).pricing_model;

describe('switching the pricing model of a dealer whose wallet holds money', () => {
  it('is refused with a 409 naming the balance, and changes nothing', async () => {
    const id = await dealerWith('FUNDED', 1250);
    const res = await h.http().patch(`/api/v1/users/${id}`).set(bearer(admin)).send({ pricing_model: 'profit', company_name: 'Funded Ltd' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      success: false,
      code: 'users.pricing_change_needs_confirmation',
      message: "This dealer's wallet holds 12.50 USD. Changing the pricing model changes who pays for its sales: confirm the change to go ahead.",
    });
    expect(await modelOf(id)).toBe('cost');
    expect((await h.knex('dealer_details').where({ user_id: id }).first()).company_name).toBeNull();
    // In the admin's language.
    const so = await h.http().patch(`/api/v1/users/${id}?lng=so`).set(bearer(admin)).send({ pricing_model: 'profit' });
    expect(so.body.message).toMatch(/^Jeebka wakiilkan wuxuu hayaa 12\.50 USD\./);
  });

  it('goes through when the request confirms it (JSON or multipart), and is logged', async () => {
    const id = await dealerWith('CONFIRMS', 500);
    const res = await h.http().patch(`/api/v1/users/${id}`).set(bearer(admin)).send({ pricing_model: 'profit', confirm_pricing_change: true });
    expect(res.status).toBe(200);
    expect(res.body.data.dealer_details.pricing_model).toBe('profit');
    const log = await h.knex('activity_log').where({ subject_type: 'user', subject_id: id, action: 'updated' }).orderBy('id', 'desc').first();
    expect(JSON.parse(log.after).dealer_details.pricing_model).toBe('profit');
    // A form with a file sends text: "true" confirms too.
    const back = await h.http().patch(`/api/v1/users/${id}`).set(bearer(admin)).field('pricing_model', 'cost').field('confirm_pricing_change', 'true');
    expect(back.status).toBe(200);
    expect(await modelOf(id)).toBe('cost');
    const unconfirmed = await h
      .http()
      .patch(`/api/v1/users/${id}`)
      .set(bearer(admin))
      .field('pricing_model', 'profit')
      .field('confirm_pricing_change', 'false');
    expect(unconfirmed.status).toBe(409);
  });

  it('needs no confirmation for an empty wallet, or when the model stays the same', async () => {
    const empty = await dealerWith('EMPTY', 0);
    expect((await h.http().patch(`/api/v1/users/${empty}`).set(bearer(admin)).send({ pricing_model: 'profit' })).status).toBe(200);
    expect(await modelOf(empty)).toBe('profit');
    const funded = await dealerWith('SAMEMODEL', 900);
    // The console's edit form sends the model every time: an unchanged one is no switch.
    const same = await h.http().patch(`/api/v1/users/${funded}`).set(bearer(admin)).send({ pricing_model: 'cost', company_name: 'Same Model' });
    expect(same.status).toBe(200);
  });

  it('a switch and a first top-up at the same moment: no 5xx, and the switch never lands after the money without its confirmation', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await dealerWith(`RACE${round}`, 0);
      const walletId = (await h.knex('wallets').where({ dealer_id: id }).first('id')).id;
      const [switched, topUp] = await Promise.all([
        h.http().patch(`/api/v1/users/${id}`).set(bearer(admin)).send({ pricing_model: 'profit' }),
        h
          .http()
          .post(`/api/v1/wallets/${walletId}/top-up`)
          .set(bearer(admin))
          .send({ amount: '3.00', reference: `pricing race ${round}` }),
      ]);
      expect(topUp.status, JSON.stringify(topUp.body)).toBe(200);
      expect([200, 409], JSON.stringify(switched.body)).toContain(switched.status);
      if (switched.status === 409) expect(await modelOf(id)).toBe('cost');
      else {
        // Switched while the wallet was still empty: logged before the money came.
        const switchLog = await h.knex('activity_log').where({ subject_type: 'user', subject_id: id, action: 'updated' }).max({ id: 'id' }).first();
        const moneyLog = await h.knex('activity_log').where({ action: 'wallet_topped_up', subject_id: walletId }).min({ id: 'id' }).first();
        expect(await modelOf(id)).toBe('profit');
        expect(switchLog!.id).toBeLessThan(moneyLog!.id);
      }
    }
  });
});
