import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, FORBIDDEN, type Harness } from '../../../tests/api/harness.ts';

/**
 * /user-options: the names behind the console's dealer and actor pickers. Whoever reads sales,
 * wallets, reports or settings filtered by dealer may list the dealers without 'view users';
 * admins' names only with a right to read admins or the logs; a dealer sees only itself.
 */
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
  await h.adminToken();
  await h.insertUser({ name: 'Qaran Shop', email: 'qaran@test.example', user_type: 'dealer', dealer_code: 'QARAN' }, 'dealer');
  await h.insertUser({ name: 'Bakaro Mobile', email: 'bakaro@test.example', user_type: 'dealer', dealer_code: 'BAKARO' }, 'dealer');
  const gone = await h.insertUser({ name: 'Gone Shop', email: 'gone@test.example', user_type: 'dealer', dealer_code: 'GONE' }, 'dealer');
  await h.knex('users').where('id', gone).update({ deleted_at: new Date() });
});
afterAll(() => h.close());

const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((u) => u.name);

describe('user options for pickers', () => {
  it("lists the dealers to a sales reader without 'view users', by name, with paging and a search on name or code", async () => {
    const { token } = await h.userWith(['view recharges']);
    const res = await h.http().get('/api/v1/user-options').set(bearer(token)).query({ user_type: 'dealer', per_page: 1 });
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['Bakaro Mobile']);
    expect(res.body.meta).toMatchObject({ total: 2, last_page: 2 });
    expect(res.body.data[0]).toEqual({
      id: expect.any(Number),
      h_id: expect.any(String),
      name: 'Bakaro Mobile',
      user_type: 'dealer',
      dealer_code: 'BAKARO',
      status: 'active',
    });
    expect(names(await h.http().get('/api/v1/user-options').set(bearer(token)).query({ q: 'qar' }))).toEqual(['Qaran Shop']);
    // No admins for a sales reader, even unasked; and one by id, by number or public id.
    expect(names(await h.http().get('/api/v1/user-options').set(bearer(token)))).toEqual(['Bakaro Mobile', 'Qaran Shop']);
    const one = await h.http().get(`/api/v1/user-options/${res.body.data[0].h_id}`).set(bearer(token));
    expect(one.body.data.name).toBe('Bakaro Mobile');
    const root = await h.knex('users').where('email', 'root@test.example').first('id');
    expect((await h.http().get(`/api/v1/user-options/${root.id}`).set(bearer(token))).status).toBe(404);
  });

  it('names the users behind a list of ids in one call (react-admin getMany), still only those the caller may name', async () => {
    const { token } = await h.userWith(['view recharges']);
    const dealers = await h.http().get('/api/v1/user-options').set(bearer(token)).query({ user_type: 'dealer' });
    const [bakaro, qaran] = dealers.body.data as { id: number; h_id: string }[];
    const root = await h.knex('users').where('email', 'root@test.example').first('id');
    // By number or public id, comma-separated or repeated; an admin's id is not named to a sales reader.
    const byIds = await h.http().get(`/api/v1/user-options?ids=${bakaro.id},${qaran.h_id},${root.id}`).set(bearer(token));
    expect(byIds.status).toBe(200);
    expect(names(byIds)).toEqual(['Bakaro Mobile', 'Qaran Shop']);
    expect(names(await h.http().get(`/api/v1/user-options?ids=${qaran.id}&ids=${bakaro.h_id}`).set(bearer(token)))).toEqual(['Bakaro Mobile', 'Qaran Shop']);
    expect(names(await h.http().get('/api/v1/user-options?ids=nonsense').set(bearer(token)))).toEqual([]);
  });

  it('names admins to a log reader (actors), and refuses a caller with no reason to know any name', async () => {
    const logs = await h.userWith(['view logs']);
    expect(names(await h.http().get('/api/v1/user-options').set(bearer(logs.token)).query({ user_type: 'admin' }))).toContain('Root Admin');
    const none = await h.userWith(['view dashboard']);
    const refused = await h.http().get('/api/v1/user-options').set(bearer(none.token));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(FORBIDDEN);
    const bad = await h.http().get('/api/v1/user-options').set(bearer(logs.token)).query({ user_type: 'robot' });
    expect(bad.status).toBe(422);
  });

  it('a dealer gets only itself', async () => {
    const token = await h.login('qaran@test.example');
    const res = await h.http().get('/api/v1/user-options').set(bearer(token));
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['Qaran Shop']);
    const other = await h.knex('users').where('dealer_code', 'BAKARO').first('id');
    expect((await h.http().get(`/api/v1/user-options/${other.id}`).set(bearer(token))).status).toBe(404);
  });
});
