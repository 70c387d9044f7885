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
  /** A valid create request (JSON or multipart) for the API, unique per call. */
  create: (req: request.Test, ownerId: number | null) => request.Test;
  /** A valid change, and the field it changes with the value the answer then shows. */
  update: { body: Record<string, unknown>; field: string; value: unknown };
  /** A valid item of POST {endpoint}/bulk, unique per call; none when bulk create takes files. */
  bulkItem?: () => Record<string, unknown>;
}

const unique = () => crypto.randomBytes(4).toString('hex');
const multipart = (req: request.Test, fields: Record<string, string | number | null | undefined>, files: Record<string, Buffer> = {}) => {
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) req.field(k, String(v));
  for (const [k, bytes] of Object.entries(files)) req.attach(k, bytes, `${k}.png`);
  return req;
};

export const RESOURCE_FIXTURES: Record<string, ResourceFixture> = {
  users: {
    create: (req) => {
      const id = unique();
      return multipart(req, { name: `Dealer ${id}`, email: `d${id}@test.example`, password: PASSWORD, password_confirmation: PASSWORD, user_type: 'dealer', dealer_code: `D${id}` }, { dealer_logo: PNG_1PX });
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
  banners: {
    create: (req, ownerId) => multipart(req, { title: `Banner ${unique()}`, link_url: 'https://example.so/offer', sort_order: 1, dealer_id: ownerId ?? undefined }, { image: PNG_1PX }),
    update: { body: { title: 'Changed title' }, field: 'title', value: 'Changed title' },
  },
};

export function fixtureOf(def: ResourceDefinition): ResourceFixture {
  const f = RESOURCE_FIXTURES[def.name];
  if (!f) throw new Error(`Resource "${def.name}" is in the registry but has no entry in tests/api/resource-fixtures.ts`);
  return f;
}

/** A record made through the API by a super admin (owned by ownerId for dealer-owned resources). */
export async function makeRecord(h: Harness, def: ResourceDefinition, ownerId: number | null, opts: { trashed?: boolean } = {}): Promise<{ id: number; h_id: string }> {
  const token = await h.adminToken();
  const res = await fixtureOf(def).create(h.http().post(`/api/v1/${def.name}`).set(bearer(token)), def.ownerColumn ? ownerId : null);
  if (res.status !== 201) throw new Error(`fixture ${def.name} not created: ${res.status} ${JSON.stringify(res.body)}`);
  const { id, h_id } = res.body.data as { id: number; h_id: string };
  if (opts.trashed) {
    const del = await h.http().delete(`/api/v1/${def.name}/${id}`).set(bearer(token));
    if (del.status !== 200) throw new Error(`fixture ${def.name} not trashed: ${del.status}`);
  }
  return { id, h_id };
}

export const REGISTRY_RESOURCES = RESOURCE_LIST;
