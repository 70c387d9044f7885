import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '@app/contracts/resources';
import { makeRecord } from '../../../tests/api/resource-fixtures.ts';
import { createHarness, bearer, FORBIDDEN, NOT_FOUND, VALIDATION, type Harness } from '../../../tests/api/harness.ts';

/**
 * POST /{resource}/reorder (generic resource routes): a new order in one call, one transaction
 * and one log entry, with the resource's update permission; a dealer names only its own rows.
 */
let h: Harness;
let admin: string;

type Row = { id: number; h_id: string; sort_order: number };

async function contact(token: string, label: string, extra: Record<string, unknown> = {}): Promise<Row> {
  const res = await h
    .http()
    .post('/api/v1/contacts')
    .set(bearer(token))
    .send({ type: 'email', label, value: `${label.toLowerCase().replace(/\W+/g, '')}@example.so`, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as Row;
}
async function dealer(code: string): Promise<{ id: number; token: string }> {
  const email = `${code.toLowerCase()}@test.example`;
  const id = await h.insertUser({ name: `Dealer ${code}`, email, user_type: 'dealer', dealer_code: code }, 'dealer');
  return { id, token: await h.login(email) };
}
const order = async (token: string, resource: string) =>
  ((await h.http().get(`/api/v1/${resource}?sort=sort_order&order=asc&per_page=100`).set(bearer(token))).body.data as Row[]).map((r) => [r.id, r.sort_order]);
const reorder = (token: string, resource: string, body: unknown) =>
  h
    .http()
    .post(`/api/v1/${resource}/reorder`)
    .set(bearer(token))
    .send(body as object);
const logs = () => h.knex('activity_log').where({ action: 'reordered' }).orderBy('id');

beforeAll(async () => {
  h = await createHarness();
  admin = await h.adminToken();
});
afterAll(() => h.close());

describe('POST /{resource}/reorder', () => {
  it('numbers the rows from start in the order given, in one call logged once', async () => {
    const a = await contact(admin, 'Alpha');
    const b = await contact(admin, 'Bravo');
    const c = await contact(admin, 'Charlie');
    const before = (await logs()).length;
    const res = await reorder(admin, 'contacts', { ids: [c.h_id, a.id, b.id], start: 10 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'New order saved', data: { affected: 3 } });
    expect(await order(admin, 'contacts')).toEqual([
      [c.id, 10],
      [a.id, 11],
      [b.id, 12],
    ]);
    const entries = await logs();
    expect(entries.length).toBe(before + 1);
    const last = entries[entries.length - 1];
    expect(last.subject_type).toBe('contact');
    expect(JSON.parse(last.after)).toEqual({ sort_order: { [c.id]: 10, [a.id]: 11, [b.id]: 12 } });

    // Only the rows whose place changed are written; the same order again writes and logs nothing.
    const swap = await reorder(admin, 'contacts', { ids: [a.id, c.id, b.id], start: 10 });
    expect(swap.body.data).toEqual({ affected: 2 });
    const same = await reorder(admin, 'contacts', { ids: [a.id, c.id, b.id], start: 10 });
    expect(same.body.data).toEqual({ affected: 0 });
    expect((await logs()).length).toBe(before + 2);
    expect(await order(admin, 'contacts')).toEqual([
      [a.id, 10],
      [c.id, 11],
      [b.id, 12],
    ]);
  });

  it('answers in the caller language', async () => {
    const a = await contact(admin, 'Delta');
    const res = await reorder(admin, 'contacts', { ids: [a.id], start: 0 }).set('Accept-Language', 'so');
    expect(res.body.message).toBe('Kala horreynta cusub waa la kaydiyay');
  });

  it('refuses an empty list, a repeated id and a negative start, with field errors', async () => {
    const a = await contact(admin, 'Echo');
    expect((await reorder(admin, 'contacts', { ids: [] })).body).toMatchObject({ message: VALIDATION, errors: { ids: ['Select at least one record'] } });
    expect((await reorder(admin, 'contacts', { ids: [a.id, a.h_id] })).body).toMatchObject({
      message: VALIDATION,
      errors: { ids: ['Each record may appear only once'] },
    });
    expect((await reorder(admin, 'contacts', { ids: [a.id], start: -1 })).status).toBe(422);
  });

  it('needs the update permission; an unknown or trashed id changes nothing (404)', async () => {
    const a = await contact(admin, 'Foxtrot');
    const b = await contact(admin, 'Golf');
    const viewer = await h.userWith(['view contact settings']);
    expect((await reorder(viewer.token, 'contacts', { ids: [b.id, a.id] })).body).toEqual(FORBIDDEN);
    const editor = await h.userWith(['view contact settings', 'update contact settings']);
    const snapshot = await order(admin, 'contacts');
    expect((await reorder(editor.token, 'contacts', { ids: [b.id, a.id, 999999] })).body).toEqual(NOT_FOUND);
    expect((await h.http().delete(`/api/v1/contacts/${a.id}`).set(bearer(admin))).status).toBe(200);
    expect((await reorder(editor.token, 'contacts', { ids: [b.id, a.id] })).status).toBe(404);
    expect(await order(admin, 'contacts')).toEqual(snapshot.filter(([id]) => id !== a.id));
    expect((await reorder(editor.token, 'contacts', { ids: [b.id], start: 3 })).status).toBe(200);
  });

  it('lets a dealer order only its own rows', async () => {
    const d1 = await dealer('REORDA');
    const d2 = await dealer('REORDB');
    const mine1 = await contact(d1.token, 'Mine one');
    const mine2 = await contact(d1.token, 'Mine two');
    const theirs = await contact(d2.token, 'Theirs');
    const global = await contact(admin, 'Company line');
    expect((await reorder(d1.token, 'contacts', { ids: [mine2.id, theirs.id] })).status).toBe(404);
    expect((await reorder(d1.token, 'contacts', { ids: [mine2.id, global.id] })).status).toBe(404);
    const ok = await reorder(d1.token, 'contacts', { ids: [mine2.id, mine1.id] });
    expect(ok.status).toBe(200);
    expect(await order(d1.token, 'contacts')).toEqual([
      [mine2.id, 0],
      [mine1.id, 1],
    ]);
    // The other dealer's row did not move.
    expect((await order(d2.token, 'contacts'))[0][0]).toBe(theirs.id);
  });

  it('is offered by every resource listed by sort_order and by no other', async () => {
    for (const name of ['internet-providers', 'internet-categories', 'bundles', 'payment-methods', 'banners'] as const) {
      const rec = await makeRecord(h, RESOURCES[name], null);
      const res = await reorder(admin, name, { ids: [rec.id], start: 7 });
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.data).toEqual({ affected: 1 });
    }
    // Areas have no sort_order: no such route (the path falls to /:id, which takes no POST).
    expect((await reorder(admin, 'areas', { ids: [1] })).status).toBe(404);
  });

  it('ten different orders of the same rows sent at once: no 5xx, and the rows end in exactly one of them, each change logged once', async () => {
    const rows = [];
    for (const label of ['Race A', 'Race B', 'Race C', 'Race D']) rows.push(await contact(admin, label));
    const ids = rows.map((r) => r.id);
    // Ten rotations and reversals of the four rows, all starting at 100.
    const orders = Array.from({ length: 10 }, (_, i) => {
      const rotated = [...ids.slice(i % 4), ...ids.slice(0, i % 4)];
      return i >= 4 ? rotated.reverse() : rotated;
    });
    const before = (await logs()).length;
    const results = await Promise.all(orders.map((o) => reorder(admin, 'contacts', { ids: o, start: 100 })));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    // The rows hold one whole order, never a mix of two.
    const final = (await h.knex('contacts').whereIn('id', ids).orderBy('sort_order').select('id', 'sort_order')) as { id: number; sort_order: number }[];
    expect(final.map((r) => Number(r.sort_order))).toEqual([100, 101, 102, 103]);
    expect(orders.map((o) => JSON.stringify(o))).toContain(JSON.stringify(final.map((r) => r.id)));
    // One log entry per call that moved a row.
    const moved = results.filter((r) => r.body.data.affected > 0).length;
    expect((await logs()).length).toBe(before + moved);
  });
});
