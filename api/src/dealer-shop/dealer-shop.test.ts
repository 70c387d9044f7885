import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PNG_1PX, type Harness } from '../../../tests/api/harness.ts';

/**
 * A dealer's own shop (GET/PATCH /my-shop): only a dealer, only its own; bad input is a 422 in the
 * reader's language; a change is logged and the storefront shows it at once (its cache cleared).
 */
let h: Harness;
let root: string;
let dealer: { id: number; token: string };
let other: { id: number; token: string };

async function makeDealer(code: string) {
  const email = `${code.toLowerCase()}@test.example`;
  const res = await h
    .http()
    .post('/api/v1/users')
    .set(bearer(root))
    .field('name', `Dealer ${code}`)
    .field('email', email)
    .field('password', 'Secret@1234')
    .field('password_confirmation', 'Secret@1234')
    .field('user_type', 'dealer')
    .field('dealer_code', code)
    .field('company_name', `${code} Ltd`)
    .attach('dealer_logo', PNG_1PX, 'l.png');
  expect(res.status).toBe(201);
  return { id: res.body.data.id as number, token: await h.login(email) };
}

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  dealer = await makeDealer('SHOPA');
  other = await makeDealer('SHOPB');
});
afterAll(() => h.close());

describe('GET /my-shop', () => {
  it("answers the dealer's own shop, its code and face", async () => {
    const res = await h.http().get('/api/v1/my-shop').set(bearer(dealer.token));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      dealer_code: 'SHOPA',
      status: 'active',
      company_name: 'SHOPA Ltd',
      brand_color: '#000000',
      description: null,
      contact_email: null,
    });
    expect(res.body.data.logo).toMatch(/^\/storage\//);
  });

  it('refuses staff (they edit a shop through the user form) and strangers', async () => {
    const staff = await h.http().get('/api/v1/my-shop').set(bearer(root));
    expect(staff.status).toBe(403);
    expect(staff.body).toMatchObject({ success: false, code: 'dealer_shop.dealers_only', message: 'Only a dealer has a shop of its own.' });
    const patch = await h.http().patch('/api/v1/my-shop').set(bearer(root)).send({ company_name: 'Taken over' });
    expect(patch.status).toBe(403);
    expect((await h.http().get('/api/v1/my-shop')).status).toBe(401);
    const admin = await h.userWith(['view dealers']);
    expect((await h.http().get('/api/v1/my-shop').set(bearer(admin.token))).body).toMatchObject({ code: 'dealer_shop.dealers_only' });
  });
});

describe('PATCH /my-shop', () => {
  it('saves its own face only, logs the change and the storefront shows it at once', async () => {
    // Read (and cached) before the change.
    const before = await h.http().get('/api/v1/client/dealer?dealer_code=SHOPA');
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(before.body.data.dealer.company_name, JSON.stringify(before.body)).toBe('SHOPA Ltd');

    const res = await h.http().patch('/api/v1/my-shop').set(bearer(dealer.token)).send({
      company_name: 'Hodan Data',
      brand_color: '#12AB9f',
      description: 'Bundles for every network',
      contact_email: 'shop@hodan.example',
      contact_phone: '+252 61 5123456',
      website: 'https://hodan.example',
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Your shop is saved. Customers see it at their next visit.');
    expect(res.body.data).toMatchObject({
      company_name: 'Hodan Data',
      brand_color: '#12AB9f',
      contact_phone: '+252 61 5123456',
      website: 'https://hodan.example',
    });

    const after = await h.http().get('/api/v1/client/dealer?dealer_code=SHOPA');
    expect(after.body.data.dealer).toMatchObject({ company_name: 'Hodan Data', brand_color: '#12AB9f', website: 'https://hodan.example' });
    // The phone and email typed here are the shop's first contacts, on the shop and its contacts call.
    expect(after.body.data.dealer.contacts.slice(0, 2)).toEqual([
      { type: 'phone', label: null, value: '+252 61 5123456' },
      { type: 'email', label: null, value: 'shop@hodan.example' },
    ]);
    const contacts = await h.http().get('/api/v1/client/contacts?dealer_code=SHOPA');
    expect(contacts.body.data.slice(0, 2).map((c: { value: string }) => c.value)).toEqual(['+252 61 5123456', 'shop@hodan.example']);
    // The other dealer's shop is untouched.
    expect((await h.knex('dealer_details').where({ user_id: other.id }).first()).company_name).toBe('SHOPB Ltd');

    const log = await h.knex('activity_log').where({ action: 'updated', subject_type: 'user', subject_id: dealer.id, actor_id: dealer.id }).first();
    expect(log).toBeDefined();
    expect(JSON.parse(log.before)).toMatchObject({ company_name: 'SHOPA Ltd', brand_color: '#000000' });
  });

  it("a renamed shop drops the old name's translations, so Arabic readers never see the old name; others stay", async () => {
    await h
      .knex('dealer_details')
      .where({ user_id: other.id })
      .update({ translations: JSON.stringify({ ae: { company_name: 'شركة قديمة', description: 'وصف' } }) });
    const res = await h.http().patch('/api/v1/my-shop').set(bearer(other.token)).send({ company_name: 'New Name Ltd' });
    expect(res.status).toBe(200);
    const shop = await h.http().get('/api/v1/client/dealer?dealer_code=SHOPB&lng=ae');
    expect(shop.body.data.dealer.company_name).toBe('New Name Ltd');
    // The description was not changed: its Arabic text stays.
    expect(JSON.parse((await h.knex('dealer_details').where({ user_id: other.id }).first()).translations)).toEqual({ ae: { description: 'وصف' } });
  });

  it('clears a text with a blank and logs nothing when nothing changed', async () => {
    const cleared = await h.http().patch('/api/v1/my-shop').set(bearer(dealer.token)).send({ website: '' });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.website).toBeNull();
    const count = async () => Number((await h.knex('activity_log').where({ action: 'updated', subject_id: dealer.id }).count({ n: '*' }).first())!.n);
    const n = await count();
    expect((await h.http().patch('/api/v1/my-shop').set(bearer(dealer.token)).send({ company_name: 'Hodan Data' })).status).toBe(200);
    expect(await count()).toBe(n);
  });

  it('answers bad input with a 422 in the reader’s language, and saves nothing', async () => {
    const en = await h
      .http()
      .patch('/api/v1/my-shop')
      .set(bearer(dealer.token))
      .send({ brand_color: 'red', contact_email: 'nope', website: 'javascript:alert(1)' });
    expect(en.status).toBe(422);
    expect(en.body.errors.brand_color).toEqual(['Brand colour must be a hex colour such as #000000']);
    expect(en.body.errors.contact_email).toHaveLength(1);
    expect(en.body.errors.website).toHaveLength(1);
    const ae = await h.http().patch('/api/v1/my-shop?lng=ae').set(bearer(dealer.token)).send({ brand_color: '#12345' });
    expect(ae.status).toBe(422);
    expect(ae.body.errors.brand_color[0]).toMatch(/[\u0600-\u06FF]/);
    const so = await h.http().patch('/api/v1/my-shop?lng=so').set(bearer(dealer.token)).send({ contact_phone: 'call me' });
    expect(so.status).toBe(422);
    expect(so.body.errors.contact_phone[0]).not.toBe('Enter a phone number such as +252 61 5123456');
    // Fields a dealer may not set here (its pricing, its code) are refused, not ignored.
    const sneaky = await h.http().patch('/api/v1/my-shop').set(bearer(dealer.token)).send({ pricing_model: 'profit' });
    expect(sneaky.status).toBe(422);
    expect((await h.knex('dealer_details').where({ user_id: dealer.id }).first()).brand_color).toBe('#12AB9f');
  });

  it("a contact listed already (the same kind, the same number however written) is not shown twice; a WhatsApp on the shop's number still is", async () => {
    await h.http().patch('/api/v1/my-shop').set(bearer(dealer.token)).send({ contact_phone: '+252 61 5123456' });
    for (const [type, value] of [
      ['phone', '061 5123456'],
      ['whatsapp', '+252 61 5123456'],
    ])
      expect((await h.http().post('/api/v1/contacts').set(bearer(dealer.token)).send({ type, value })).status).toBe(201);
    const contacts = (await h.http().get('/api/v1/client/contacts?dealer_code=SHOPA')).body.data as { type: string; value: string }[];
    expect(contacts.filter((c) => c.type === 'phone').map((c) => c.value)).toEqual(['061 5123456']);
    expect(contacts.filter((c) => c.type === 'whatsapp').map((c) => c.value)).toEqual(['+252 61 5123456']);
  });

  it('ten saves of the same shop at once: each answers 200, one after another (each log entry starts where the one before ended), the last one kept', async () => {
    const start = Number((await h.knex('activity_log').max({ id: 'id' }).first())!.id ?? 0);
    const names = Array.from({ length: 10 }, (_, i) => `Rush Shop ${i}`);
    const answers = await Promise.all(
      names.map((company_name, i) =>
        h
          .http()
          .patch('/api/v1/my-shop')
          .set(bearer(other.token))
          .send({ company_name, brand_color: `#00000${i}` }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(names.map(() => 200));
    const logs: { before: string; after: string }[] = await h
      .knex('activity_log')
      .where('id', '>', start)
      .where({ action: 'updated', subject_type: 'user', subject_id: other.id })
      .orderBy('id')
      .select('before', 'after');
    expect(logs).toHaveLength(10);
    // Serialised by the dealer's row lock: no save read a name another was replacing at the same moment.
    for (let i = 1; i < logs.length; i++) expect(JSON.parse(logs[i].before).company_name).toBe(JSON.parse(logs[i - 1].after).company_name);
    const kept = await h.knex('dealer_details').where({ user_id: other.id }).first();
    expect(kept.company_name).toBe(JSON.parse(logs[9].after).company_name);
    expect(kept.brand_color).toBe(JSON.parse(logs[9].after).brand_color);
  });
});
