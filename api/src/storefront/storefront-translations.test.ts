import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, PNG_1PX, type Harness } from '../../../tests/api/harness.ts';

/**
 * Content translations (issue 15 item 5): the texts a dealer or an admin types (operator,
 * category and bundle names, banner titles, the shop's description, contact labels, payment
 * instructions) are stored per language beside the original, validated like the original, and
 * served to the storefront's customer in its language (Accept-Language 'ar' is Arabic), falling
 * back to the original. The storefront cache keeps one answer per language, and an edit shows on
 * the next read.
 */
let h: Harness;
let root: string;
let dealer: { id: number; token: string };
let providerId: number;
let categoryId: number;
let bundleId: number;
let bannerId: number;
let contactId: number;
let methodId: number;

const CODE = 'TURJUM';
const read = (path: string, lang?: string) => {
  const req = h.http().get(`/api/v1/client/${path}`).set('dealer_code', CODE);
  return lang ? req.set('Accept-Language', lang) : req;
};
const providers = async (lang?: string) => {
  const res = await read('dealer/providers', lang);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.providers as { name: string; categories: { name: string; description: string | null; bundles: { name: string }[] }[] }[];
};

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
  const email = 'turjum@test.example';
  const id = await h.insertUser({ name: 'Turjum Data', email, user_type: 'dealer', dealer_code: CODE }, 'dealer');
  await h.knex('dealer_details').insert({
    user_id: id,
    brand_color: '#0A7D32',
    company_name: 'Turjum Ltd',
    description: 'Data bundles for every network',
    pricing_model: 'cost',
    created_at: '2026-01-01 00:00:00.000',
    updated_at: '2026-01-01 00:00:00.000',
  });
  dealer = { id, token: await h.login(email) };

  // The operator as the console sends it with a logo: multipart, translations as JSON text.
  const p = await h
    .http()
    .post('/api/v1/internet-providers')
    .set(bearer(root))
    .field('name', 'Hormuud')
    .field('code', 'HOR')
    .field('phone_prefixes', '61,77')
    .field('translations', JSON.stringify({ ae: { name: 'هرمود' }, so: { name: 'Hormuud (SO)' } }))
    .attach('logo', PNG_1PX, 'logo.png');
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  providerId = p.body.data.id;
  const c = await h
    .http()
    .post('/api/v1/internet-categories')
    .set(bearer(root))
    .send({
      provider_id: providerId,
      name: 'Daily',
      description: 'One day of internet',
      translations: { ae: { name: 'يومي', description: 'يوم واحد من الإنترنت' }, so: { name: 'Maalinle' } },
    });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  categoryId = c.body.data.id;
  const b = await h
    .http()
    .post('/api/v1/bundles')
    .set(bearer(root))
    .send({
      category_id: categoryId,
      name: '1 GB Daily',
      data_volume_mb: 1024,
      validity_days: 1,
      cost_price: '0.40',
      selling_price: '0.50',
      translations: { ae: { name: '1 جيجابايت يومي' }, so: { name: '1 GB Maalinle' } },
    });
  expect(b.status, JSON.stringify(b.body)).toBe(201);
  bundleId = b.body.data.id;
  expect((await h.http().patch(`/api/v1/dealer-bundles/${bundleId}`).set(bearer(dealer.token)).send({ status: 'active', selling_price: '0.55' })).status).toBe(
    200,
  );

  const banner = await h
    .http()
    .post('/api/v1/banners')
    .set(bearer(dealer.token))
    .field('title', 'Weekend offer')
    .field('translations', JSON.stringify({ ae: { title: 'عرض نهاية الأسبوع' }, so: { title: 'Dalab dhammaadka toddobaadka' } }))
    .attach('image', PNG_1PX, 'b.png');
  expect(banner.status, JSON.stringify(banner.body)).toBe(201);
  bannerId = banner.body.data.id;
  const contact = await h
    .http()
    .post('/api/v1/contacts')
    .set(bearer(dealer.token))
    .send({
      type: 'whatsapp',
      label: 'Orders on WhatsApp',
      value: '+252 61 5000000',
      translations: { ae: { label: 'الطلبات عبر واتساب' }, so: { label: 'Dalabaadka WhatsApp' } },
    });
  expect(contact.status, JSON.stringify(contact.body)).toBe(201);
  contactId = contact.body.data.id;
  const method = await h
    .http()
    .post('/api/v1/payment-methods')
    .set(bearer(dealer.token))
    .send({
      name: 'EVC Plus',
      type: 'evc_plus',
      account_number: '615000000',
      instructions: 'Dial *712*615000000*amount#',
      translations: { ae: { instructions: 'اطلب *712*615000000*المبلغ#' }, so: { name: 'EVC Plus (Hormuud)', instructions: 'Garaac *712*615000000*lacagta#' } },
    });
  expect(method.status, JSON.stringify(method.body)).toBe(201);
  methodId = method.body.data.id;
  // The dealer's description through the user form (the dealer fields of /users).
  const user = await h
    .http()
    .patch(`/api/v1/users/${dealer.id}`)
    .set(bearer(root))
    .send({
      translations: {
        ae: { description: 'باقات بيانات لكل شبكة' },
        so: { description: 'Xirmooyin internet shabakad kasta', company_name: 'Turjum Shirkadda' },
      },
    });
  expect(user.status, JSON.stringify(user.body)).toBe(200);
});
afterAll(() => h.close());

describe('storing translations', () => {
  it('answers them with each record and logs them with its changes', async () => {
    expect((await h.http().get(`/api/v1/internet-providers/${providerId}`).set(bearer(root))).body.data.translations).toEqual({
      ae: { name: 'هرمود' },
      so: { name: 'Hormuud (SO)' },
    });
    expect((await h.http().get(`/api/v1/internet-categories/${categoryId}`).set(bearer(root))).body.data.translations).toEqual({
      ae: { name: 'يومي', description: 'يوم واحد من الإنترنت' },
      so: { name: 'Maalinle' },
    });
    expect((await h.http().get(`/api/v1/bundles/${bundleId}`).set(bearer(root))).body.data.translations).toEqual({
      ae: { name: '1 جيجابايت يومي' },
      so: { name: '1 GB Maalinle' },
    });
    expect((await h.http().get(`/api/v1/banners/${bannerId}`).set(bearer(dealer.token))).body.data.translations).toEqual({
      ae: { title: 'عرض نهاية الأسبوع' },
      so: { title: 'Dalab dhammaadka toddobaadka' },
    });
    expect((await h.http().get(`/api/v1/contacts/${contactId}`).set(bearer(dealer.token))).body.data.translations).toEqual({
      ae: { label: 'الطلبات عبر واتساب' },
      so: { label: 'Dalabaadka WhatsApp' },
    });
    expect((await h.http().get(`/api/v1/payment-methods/${methodId}`).set(bearer(dealer.token))).body.data.translations.so).toEqual({
      name: 'EVC Plus (Hormuud)',
      instructions: 'Garaac *712*615000000*lacagta#',
    });
    expect((await h.http().get(`/api/v1/users/${dealer.id}`).set(bearer(root))).body.data.dealer_details.translations).toEqual({
      ae: { description: 'باقات بيانات لكل شبكة' },
      so: { description: 'Xirmooyin internet shabakad kasta', company_name: 'Turjum Shirkadda' },
    });

    const created = await h.knex('activity_log').where({ subject_type: 'bundle', subject_id: bundleId, action: 'created' }).first();
    expect(JSON.parse(created.after).translations).toEqual({ ae: { name: '1 جيجابايت يومي' }, so: { name: '1 GB Maalinle' } });
    const userLog = await h.knex('activity_log').where({ subject_type: 'user', subject_id: dealer.id, action: 'updated' }).orderBy('id', 'desc').first();
    expect(JSON.parse(userLog.before).dealer_details.translations).toBeNull();
    expect(JSON.parse(userLog.after).dealer_details.translations.ae).toEqual({ description: 'باقات بيانات لكل شبكة' });
  });

  it('refuses unknown languages and fields and over-long texts, all at once, in the caller’s language', async () => {
    const res = await h
      .http()
      .patch(`/api/v1/bundles/${bundleId}`)
      .set(bearer(root))
      .send({ translations: { fr: { name: 'Quotidien' }, ae: { description: 'x', name: 'x'.repeat(192) } } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      'translations.fr': ['Translations are accepted only in English (en), Arabic (ae) and Somali (so).'],
      'translations.ae.description': ['This text cannot be translated: only names, descriptions, titles, labels and instructions can.'],
      'translations.ae.name': ['Name may not be greater than 191 characters'],
    });
    const ar = await h
      .http()
      .patch(`/api/v1/contacts/${contactId}`)
      .set(bearer(dealer.token))
      .set('Accept-Language', 'ar')
      .send({ translations: { ae: { value: '+252' } } });
    expect(ar.status).toBe(422);
    expect(ar.body.errors).toEqual({ 'translations.ae.value': ['لا يمكن ترجمة هذا النص: تُترجم الأسماء والأوصاف والعناوين والتسميات والتعليمات فقط.'] });
    const so = await h
      .http()
      .patch(`/api/v1/payment-methods/${methodId}`)
      .set(bearer(dealer.token))
      .set('Accept-Language', 'so')
      .send({ translations: 'not json' });
    expect(so.status).toBe(422);
    expect(so.body.errors.translations[0]).toMatch(/^Tarjumaaduhu waa inay/);
    const long = await h
      .http()
      .patch(`/api/v1/payment-methods/${methodId}`)
      .set(bearer(dealer.token))
      .send({ translations: { so: { instructions: 'x'.repeat(2001) } } });
    expect(long.body.errors).toEqual({ 'translations.so.instructions': ['This value is too long'] });
    // Nothing was changed by the refused requests.
    expect((await h.http().get(`/api/v1/bundles/${bundleId}`).set(bearer(root))).body.data.translations.ae).toEqual({ name: '1 جيجابايت يومي' });
  });
});

describe('serving translations on the storefront', () => {
  it('answers every text in Arabic (ar) and Somali, and the originals in English or with no language', async () => {
    const [ar] = await providers('ar');
    expect(ar.name).toBe('هرمود');
    expect(ar.categories[0]).toMatchObject({ name: 'يومي', description: 'يوم واحد من الإنترنت' });
    expect(ar.categories[0].bundles[0].name).toBe('1 جيجابايت يومي');
    const [so] = await providers('so-SO,so;q=0.9');
    expect(so.name).toBe('Hormuud (SO)');
    // Not translated into Somali: the original.
    expect(so.categories[0]).toMatchObject({ name: 'Maalinle', description: 'One day of internet' });
    expect(so.categories[0].bundles[0].name).toBe('1 GB Maalinle');
    for (const lang of ['en', undefined]) {
      const [en] = await providers(lang);
      expect(en.name).toBe('Hormuud');
      expect(en.categories[0]).toMatchObject({ name: 'Daily', description: 'One day of internet' });
      expect(en.categories[0].bundles[0].name).toBe('1 GB Daily');
    }

    const dealerAr = (await read('dealer', 'ar')).body.data;
    expect(dealerAr.dealer).toMatchObject({ name: 'Turjum Data', company_name: 'Turjum Ltd', description: 'باقات بيانات لكل شبكة' });
    expect(dealerAr.dealer.contacts).toEqual([{ type: 'whatsapp', label: 'الطلبات عبر واتساب', value: '+252 61 5000000' }]);
    expect(dealerAr.banners.map((b: { title: string }) => b.title)).toEqual(['عرض نهاية الأسبوع']);
    const dealerSo = (await read('dealer', 'so')).body.data;
    expect(dealerSo.dealer).toMatchObject({ company_name: 'Turjum Shirkadda', description: 'Xirmooyin internet shabakad kasta' });
    expect(dealerSo.dealer.contacts[0].label).toBe('Dalabaadka WhatsApp');
    expect(dealerSo.banners[0].title).toBe('Dalab dhammaadka toddobaadka');
    const dealerEn = (await read('dealer', 'en')).body.data;
    expect(dealerEn.dealer).toMatchObject({ company_name: 'Turjum Ltd', description: 'Data bundles for every network' });
    expect(dealerEn.dealer.contacts[0].label).toBe('Orders on WhatsApp');
    expect(dealerEn.banners[0].title).toBe('Weekend offer');

    expect((await read('contacts', 'so')).body.data).toEqual([{ id: contactId, type: 'whatsapp', label: 'Dalabaadka WhatsApp', value: '+252 61 5000000' }]);
    expect((await read('contacts')).body.data[0].label).toBe('Orders on WhatsApp');
    const payAr = (await read('payment-methods', 'ar')).body.data[0];
    expect(payAr).toMatchObject({ name: 'EVC Plus', instructions: 'اطلب *712*615000000*المبلغ#', account_number: '615000000' });
    const paySo = (await read('payment-methods', 'so')).body.data[0];
    // A wallet is named as customers know it (issue 28 item 8), whatever its record's name in a language.
    expect(paySo).toMatchObject({ name: 'EVC Plus', instructions: 'Garaac *712*615000000*lacagta#' });
    expect((await read('payment-methods', 'en')).body.data[0]).toMatchObject({ name: 'EVC Plus', instructions: 'Dial *712*615000000*amount#' });
    // ?lng= wins over the header, as for every message.
    expect((await h.http().get('/api/v1/client/contacts?lng=ae').set('dealer_code', CODE).set('Accept-Language', 'so')).body.data[0].label).toBe(
      'الطلبات عبر واتساب',
    );
  });

  it('never serves one language’s cached answer to another (cache and fast path), and varies by Accept-Language', async () => {
    // Interleaved repeats: each read after the first of its language comes from the cache.
    for (let round = 0; round < 3; round++) {
      for (const [lang, title] of [
        ['ar', 'عرض نهاية الأسبوع'],
        ['so', 'Dalab dhammaadka toddobaadka'],
        ['en', 'Weekend offer'],
        [undefined, 'Weekend offer'],
      ] as const) {
        const res = await read('dealer', lang);
        expect(res.status).toBe(200);
        expect(res.body.data.banners[0].title).toBe(title);
        expect(res.headers.vary).toMatch(/Accept-Language/);
      }
    }
    const ar = await read('dealer/providers', 'ar');
    const so = await read('dealer/providers', 'so');
    expect(ar.headers.etag).not.toBe(so.headers.etag);
    // The Arabic ETag does not answer 304 to a Somali read: the Somali body comes back.
    const soWithArTag = await read('dealer/providers', 'so').set('If-None-Match', ar.headers.etag);
    expect(soWithArTag.status).toBe(200);
    expect(soWithArTag.body.data.providers[0].name).toBe('Hormuud (SO)');
    expect((await read('dealer/providers', 'ar').set('If-None-Match', ar.headers.etag)).status).toBe(304);
    // Upper or lower case dealer code, one entry per language still.
    expect(
      (await h.http().get('/api/v1/client/dealer/providers').set('dealer_code', CODE.toLowerCase()).set('Accept-Language', 'ar')).body.data.providers[0].name,
    ).toBe('هرمود');
  });

  it('shows an edit on the next read, in every language, and falls back when a translation is removed', async () => {
    // Warm every language.
    for (const lang of ['ar', 'so', 'en']) await providers(lang);
    const edit = await h
      .http()
      .patch(`/api/v1/bundles/${bundleId}`)
      .set(bearer(root))
      .send({ translations: { ae: { name: 'باقة 1 جيجا' }, so: { name: '1 GB Maalin kasta' } } });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    expect((await providers('ar'))[0].categories[0].bundles[0].name).toBe('باقة 1 جيجا');
    expect((await providers('so'))[0].categories[0].bundles[0].name).toBe('1 GB Maalin kasta');
    // An English translation replaces the original for English readers only.
    await h
      .http()
      .patch(`/api/v1/internet-providers/${providerId}`)
      .set(bearer(root))
      .send({ translations: { ae: { name: 'هرمود' }, en: { name: 'Hormuud Telecom' } } });
    expect((await providers('en'))[0].name).toBe('Hormuud Telecom');
    expect((await providers())[0].name).toBe('Hormuud Telecom');
    // Somali was dropped from the operator's translations: the original again.
    expect((await providers('so'))[0].name).toBe('Hormuud');

    // The dealer edits its contact and payment instructions; the shop shows them at once.
    await read('dealer', 'so');
    await read('payment-methods', 'ar');
    expect(
      (
        await h
          .http()
          .patch(`/api/v1/contacts/${contactId}`)
          .set(bearer(dealer.token))
          .send({ translations: { so: { label: 'Dalbo WhatsApp' } } })
      ).status,
    ).toBe(200);
    expect((await read('dealer', 'so')).body.data.dealer.contacts[0].label).toBe('Dalbo WhatsApp');
    // Arabic was removed from the contact: the original.
    expect((await read('dealer', 'ar')).body.data.dealer.contacts[0].label).toBe('Orders on WhatsApp');
    expect((await h.http().patch(`/api/v1/payment-methods/${methodId}`).set(bearer(dealer.token)).send({ translations: null })).status).toBe(200);
    expect((await read('payment-methods', 'ar')).body.data[0].instructions).toBe('Dial *712*615000000*amount#');
    // A banner edited as multipart, with its translations as JSON text.
    const banner = await h
      .http()
      .patch(`/api/v1/banners/${bannerId}`)
      .set(bearer(dealer.token))
      .field('translations', JSON.stringify({ ae: { title: 'عرض جديد' } }));
    expect(banner.status, JSON.stringify(banner.body)).toBe(200);
    expect((await read('dealer', 'ar')).body.data.banners[0].title).toBe('عرض جديد');
    expect((await read('dealer', 'so')).body.data.banners[0].title).toBe('Weekend offer');
    // The dealer's description through its user record.
    expect(
      (
        await h
          .http()
          .patch(`/api/v1/users/${dealer.id}`)
          .set(bearer(root))
          .send({ translations: { ae: { description: 'وصف جديد' } } })
      ).status,
    ).toBe(200);
    expect((await read('dealer', 'ar')).body.data.dealer.description).toBe('وصف جديد');
    expect((await read('dealer', 'so')).body.data.dealer.description).toBe('Data bundles for every network');
  });
});
