import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PNG_1PX, type Harness } from '../../../tests/api/harness.ts';

/** GET /logs names what each entry is about (the console writes a sentence from it), and links it. */
let h: Harness;
let root: string;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
});
afterAll(() => h.close());

const entry = async (action: string, subjectType: string, subjectId: number) => {
  const res = await h
    .http()
    .get('/api/v1/logs')
    .query({ action, subject_type: subjectType, subject_id: String(subjectId) })
    .set(bearer(root));
  expect(res.status).toBe(200);
  expect(res.body.data.length).toBeGreaterThan(0);
  return res.body.data[0];
};

describe('GET /logs subjects', () => {
  it('names a role by its name, and a user by name with its type', async () => {
    const role = await h.http().post('/api/v1/roles').set(bearer(root)).send({ name: 'Editors' });
    expect(role.status).toBe(201);
    const id = role.body.data.id as number;
    expect(await entry('created', 'role', id)).toMatchObject({
      action: 'created',
      subject: { type: 'role', id, name: 'Editors' },
      actor: { name: expect.any(String) },
    });
    const login = await h.http().get('/api/v1/logs').query({ action: 'login' }).set(bearer(root));
    const first = login.body.data[0];
    expect(first.subject).toMatchObject({ type: 'user', name: expect.any(String), user_type: 'admin' });
  });

  it('names a banner by its title, and still after it is deleted for good (from the snapshot)', async () => {
    const res = await h.http().post('/api/v1/banners').set(bearer(root)).field('title', 'Weekend offer').attach('image', PNG_1PX, 'b.png');
    expect(res.status).toBe(201);
    const id = res.body.data.id as number;
    expect(await entry('created', 'banner', id)).toMatchObject({ subject: { type: 'banner', id, name: 'Weekend offer' } });
    expect((await h.http().delete(`/api/v1/banners/${id}`).set(bearer(root))).status).toBe(200);
    expect(await entry('deleted', 'banner', id)).toMatchObject({ subject: { name: 'Weekend offer', gone: true } });
    expect((await h.http().delete(`/api/v1/banners/${id}/force`).set(bearer(root))).status).toBe(200);
    const gone = await entry('force_deleted', 'banner', id);
    expect(gone.subject).toMatchObject({ type: 'banner', id, name: 'Weekend offer', gone: true });
    // One entry answers the same way.
    const one = await h.http().get(`/api/v1/logs/${gone.id}`).set(bearer(root));
    expect(one.body.data.subject).toEqual(gone.subject);
  });

  it("names a wallet by its dealer, with the dealer's id", async () => {
    const res = await h
      .http()
      .post('/api/v1/users')
      .set(bearer(root))
      .field('name', 'Shop Logs')
      .field('email', 'shoplogs@test.example')
      .field('password', 'Secret@1234')
      .field('password_confirmation', 'Secret@1234')
      .field('user_type', 'dealer')
      .field('dealer_code', 'SHOPLOGS')
      .attach('dealer_logo', PNG_1PX, 'l.png');
    expect(res.status).toBe(201);
    const dealerId = res.body.data.id as number;
    const wallet = await h.knex('wallets').where({ dealer_id: dealerId }).first();
    expect((await h.http().post(`/api/v1/wallets/${wallet.id}/top-up`).set(bearer(root)).send({ amount: '5.00', reference: 'EVC-LOGS' })).status).toBe(200);
    expect(await entry('wallet_topped_up', 'wallet', wallet.id)).toMatchObject({
      subject: { type: 'wallet', id: wallet.id, name: 'Shop Logs', dealer_id: dealerId },
    });
    expect(await entry('created', 'user', dealerId)).toMatchObject({ subject: { type: 'user', name: 'Shop Logs', user_type: 'dealer' } });
  });
});
