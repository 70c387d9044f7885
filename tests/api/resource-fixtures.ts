import crypto from 'node:crypto';
import type request from 'supertest';
import { RESOURCE_LIST, type ResourceDefinition } from '@app/contracts';
import { bearer, PASSWORD, PNG_1PX, type Harness } from './harness.ts';

/**
 * Test data for every registry resource, shared by the route-permission matrix and the
 * lifecycle contract (tests/api/*.test.ts). A resource added to the registry without an entry
 * here fails those suites with a message that says so: that entry is all a new resource adds.
 */
export interface ResourceFixture {
  /** A valid create request (JSON or multipart) for the API, unique per call; may make what it refers to first. */
  create: (req: request.Test, ownerId: number | null, h: Harness) => PromiseLike<request.Response>;
  /** A valid change, and the field it changes with the value the answer then shows. */
  update: { body: Record<string, unknown>; field: string; value: unknown };
  /** A valid item of POST {endpoint}/bulk, unique per call; none when bulk create takes files. */
  bulkItem?: (h: Harness) => Record<string, unknown> | Promise<Record<string, unknown>>;
}

/** A live provider, and a live category of it, made directly in the database for records that refer to them. */
async function providerId(h: Harness): Promise<number> {
  const code = `P${unique()}`;
  await h.knex('providers').insert({
    name: `Operator ${code}`,
    code,
    status: 'active',
    sort_order: 0,
    adapter_key: 'sandbox',
    phone_prefixes: JSON.stringify([uniquePrefix()]),
    created_at: '2026-01-01 00:00:00.000',
    updated_at: '2026-01-01 00:00:00.000',
  });
  return (await h.knex('providers').where({ code }).first()).id as number;
}
async function categoryId(h: Harness): Promise<number> {
  const provider_id = await providerId(h);
  await h
    .knex('categories')
    .insert({ provider_id, name: 'Daily', status: 'active', sort_order: 0, created_at: '2026-01-01 00:00:00.000', updated_at: '2026-01-01 00:00:00.000' });
  return (await h.knex('categories').where({ provider_id }).first()).id as number;
}

const unique = () => crypto.randomBytes(4).toString('hex');
// A number prefix belongs to one operator: each made here gets its own four digits (1000, 1001, ...: no real operator's).
let prefixes = 0;
const uniquePrefix = () => String(1000 + (prefixes++ % 9000));
const multipart = (req: request.Test, fields: Record<string, string | number | null | undefined>, files: Record<string, Buffer> = {}) => {
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) req.field(k, String(v));
  for (const [k, bytes] of Object.entries(files)) req.attach(k, bytes, `${k}.png`);
  return req;
};

export const RESOURCE_FIXTURES: Record<string, ResourceFixture> = {
  users: {
    create: (req) => {
      const id = unique();
      return multipart(
        req,
        { name: `Dealer ${id}`, email: `d${id}@test.example`, password: PASSWORD, password_confirmation: PASSWORD, user_type: 'dealer', dealer_code: `D${id}` },
        { dealer_logo: PNG_1PX },
      );
    },
    update: { body: { name: 'Renamed Dealer' }, field: 'name', value: 'Renamed Dealer' },
    bulkItem: () => {
      const id = unique();
      return { name: `Admin ${id}`, email: `a${id}@test.example`, password: PASSWORD, password_confirmation: PASSWORD, user_type: 'admin', role_id: 1 };
    },
  },
  roles: {
    create: (req) => req.send({ name: `role-${unique()}`, description: 'made by a fixture' }),
    update: { body: { description: 'changed' }, field: 'description', value: 'changed' },
    bulkItem: () => ({ name: `role-${unique()}` }),
  },
  'internet-providers': {
    create: (req) => req.send({ name: `Operator ${unique()}`, code: `OP${unique()}`, phone_prefixes: [uniquePrefix()] }),
    update: { body: { name: 'Renamed Operator' }, field: 'name', value: 'Renamed Operator' },
    bulkItem: () => ({ name: `Operator ${unique()}`, code: `OP${unique()}` }),
  },
  'internet-categories': {
    create: async (req, _owner, h) => req.send({ provider_id: await providerId(h), name: `Weekly ${unique()}` }),
    update: { body: { description: 'Seven days' }, field: 'description', value: 'Seven days' },
    bulkItem: async (h) => ({ provider_id: await providerId(h), name: `Monthly ${unique()}` }),
  },
  bundles: {
    create: async (req, _owner, h) =>
      req.send({
        category_id: await categoryId(h),
        name: `1 GB ${unique()}`,
        data_volume_mb: 1024,
        validity_days: 1,
        cost_price: '0.40',
        selling_price: '0.50',
      }),
    update: { body: { selling_price: '0.75' }, field: 'selling_price', value: '0.75' },
    bulkItem: async (h) => ({
      category_id: await categoryId(h),
      name: `2 GB ${unique()}`,
      data_volume_mb: 2048,
      validity_days: 7,
      cost_price: 1,
      selling_price: 1.25,
    }),
  },
  banners: {
    create: (req, ownerId) =>
      multipart(req, { title: `Banner ${unique()}`, link_url: 'https://example.so/offer', sort_order: 1, dealer_id: ownerId ?? undefined }, { image: PNG_1PX }),
    update: { body: { title: 'Changed title' }, field: 'title', value: 'Changed title' },
  },
  'payment-methods': {
    create: (req, ownerId) =>
      multipart(
        req,
        { name: `EVC Plus ${unique()}`, type: 'evc_plus', account_number: '615123456', instructions: 'Dial *712#', dealer_id: ownerId ?? undefined },
        { logo: PNG_1PX },
      ),
    update: { body: { account_number: '617000000' }, field: 'account_number', value: '617000000' },
    bulkItem: () => ({ name: `Zaad ${unique()}`, type: 'zaad', account_number: '634000000' }),
  },
  contacts: {
    create: (req, ownerId) => req.send({ type: 'whatsapp', label: `Sales ${unique()}`, value: '+252 61 5123456', ...(ownerId ? { dealer_id: ownerId } : {}) }),
    update: { body: { label: 'Support' }, field: 'label', value: 'Support' },
    bulkItem: () => ({ type: 'email', label: `Mail ${unique()}`, value: `help-${unique()}@example.so` }),
  },
  areas: {
    create: (req) => req.send({ name: `Hodan ${unique()}`, code: `A${unique()}`, type: 'district' }),
    update: { body: { name: 'Wadajir' }, field: 'name', value: 'Wadajir' },
    bulkItem: () => ({ name: `Banaadir ${unique()}`, type: 'region' }),
  },
};

export function fixtureOf(def: ResourceDefinition): ResourceFixture {
  const f = RESOURCE_FIXTURES[def.name];
  if (!f) throw new Error(`Resource "${def.name}" is in the registry but has no entry in tests/api/resource-fixtures.ts`);
  return f;
}

/** A record made through the API by a super admin (owned by ownerId for dealer-owned resources). */
export async function makeRecord(
  h: Harness,
  def: ResourceDefinition,
  ownerId: number | null,
  opts: { trashed?: boolean } = {},
): Promise<{ id: number; h_id: string }> {
  const token = await h.adminToken();
  const res = await fixtureOf(def).create(h.http().post(`/api/v1/${def.name}`).set(bearer(token)), def.ownerColumn ? ownerId : null, h);
  if (res.status !== 201) throw new Error(`fixture ${def.name} not created: ${res.status} ${JSON.stringify(res.body)}`);
  const { id, h_id } = res.body.data as { id: number; h_id: string };
  if (opts.trashed) {
    const del = await h.http().delete(`/api/v1/${def.name}/${id}`).set(bearer(token));
    if (del.status !== 200) throw new Error(`fixture ${def.name} not trashed: ${del.status}`);
  }
  return { id, h_id };
}

export const REGISTRY_RESOURCES = RESOURCE_LIST;
