import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationPermissions, type Operation, type ResourceDefinition } from '@app/contracts';
import { createHarness, bearer, PASSWORD, type Harness } from './harness.ts';
import { fixtureOf, makeRecord, REGISTRY_RESOURCES } from './resource-fixtures.ts';

/**
 * The route-permission matrix, generated from the registry: every operation of every resource
 * x {anonymous, locked session, super admin, a limited admin, dealer A, dealer B}. The expected
 * status comes from the registry's permissions and owner column, never from a per-resource table:
 * a new resource is covered by adding it to the registry (and a fixture).
 */
type ActorName = 'anonymous' | 'locked' | 'superAdmin' | 'limitedAdmin' | 'dealerA' | 'dealerB';
interface Actor {
  token: string | null;
  id: number | null;
  permissions: Set<string>;
  dealer: boolean;
}

let h: Harness;
const actors = {} as Record<ActorName, Actor>;

async function dealer(name: string): Promise<Actor> {
  const email = `${name}@test.example`;
  const id = await h.insertUser({ name, email, user_type: 'dealer', dealer_code: name.toUpperCase() }, 'dealer');
  const perms = await h
    .knex('permissions')
    .join('role_permissions', 'role_permissions.permission_id', 'permissions.id')
    .join('roles', 'roles.id', 'role_permissions.role_id')
    .where('roles.name', 'dealer')
    .pluck('permissions.name');
  return { token: await h.login(email), id, permissions: new Set(perms), dealer: true };
}

beforeAll(async () => {
  h = await createHarness();
  const all = new Set<string>(await h.knex('permissions').pluck('name'));
  actors.anonymous = { token: null, id: null, permissions: new Set(), dealer: false };
  actors.superAdmin = { token: await h.adminToken(), id: null, permissions: all, dealer: false };
  const limited = await h.userWith(['view dashboard']);
  actors.limitedAdmin = { token: limited.token, id: limited.id, permissions: new Set(['view dashboard']), dealer: false };
  const lockedUser = await h.userWith([...all]);
  expect((await h.http().post('/api/v1/auth/lock').set(bearer(lockedUser.token)).send({ password: PASSWORD })).status).toBe(200);
  actors.locked = { token: lockedUser.token, id: lockedUser.id, permissions: all, dealer: false };
  actors.dealerA = await dealer('dealera');
  actors.dealerB = await dealer('dealerb');
});
afterAll(() => h.close());

const RECORD_OPS: Operation[] = ['show', 'update', 'delete', 'trashShow', 'restore', 'forceDelete', 'bulkDelete', 'bulkRestore', 'bulkForceDelete'];
const TRASHED_OPS: Operation[] = ['trashShow', 'restore', 'bulkRestore'];

function request(def: ResourceDefinition, op: Operation, id: number) {
  const base = `/api/v1/${def.name}`;
  const http = h.http();
  switch (op) {
    case 'list':
      return http.get(base);
    case 'search':
      return http.get(`${base}/search?q=a`);
    case 'show':
      return http.get(`${base}/${id}`);
    case 'create':
      return http.post(base).send({});
    case 'update':
      return http.patch(`${base}/${id}`).send(fixtureOf(def).update.body);
    case 'delete':
      return http.delete(`${base}/${id}`);
    case 'trashList':
      return http.get(`${base}/trashed/list`);
    case 'trashShow':
      return http.get(`${base}/${id}/trashed`);
    case 'restore':
      return http.post(`${base}/${id}/restore`);
    case 'forceDelete':
      return http.delete(`${base}/${id}/force`);
    case 'bulkCreate':
      return http.post(`${base}/bulk`).send([]);
    case 'bulkDelete':
      return http.delete(`${base}/bulk/delete`).send({ ids: [id] });
    case 'bulkRestore':
      return http.post(`${base}/bulk/restore`).send({ ids: [id] });
    case 'bulkForceDelete':
      return http.delete(`${base}/bulk/force-delete`).send({ ids: [id] });
  }
}

function expected(def: ResourceDefinition, op: Operation, actorName: ActorName, ownerId: number | null): number[] {
  const actor = actors[actorName];
  if (!actor.token) return [401];
  if (actorName === 'locked') return [423];
  const need = operationPermissions(def, op);
  const permitted = need.all.every((p) => actor.permissions.has(p)) && (need.any.length === 0 || need.any.some((p) => actor.permissions.has(p)));
  if (!permitted) return [403];
  // A dealer never reaches another dealer's rows, nor the global ones.
  if (actor.dealer && def.ownerColumn && RECORD_OPS.includes(op) && ownerId !== actor.id) return [404];
  // Allowed: success, or a validation answer to the deliberately empty create bodies.
  return [200, 201, 422];
}

describe.each(REGISTRY_RESOURCES.map((def) => [def.name, def] as const))('%s: every operation x every kind of caller', (_name, def) => {
  const cases = def.operations.flatMap((op) =>
    (Object.keys({ anonymous: 1, locked: 1, superAdmin: 1, limitedAdmin: 1, dealerA: 1, dealerB: 1 }) as ActorName[]).map((a) => [op, a] as const),
  );
  it.each(cases)('%s as %s', async (op, actorName) => {
    const ownerId = def.ownerColumn ? actors.dealerB.id : null;
    const record = RECORD_OPS.includes(op) ? await makeRecord(h, def, ownerId, { trashed: TRASHED_OPS.includes(op) }) : { id: 0 };
    const req = request(def, op, record.id);
    const token = actors[actorName].token;
    const res = await (token ? req.set(bearer(token)) : req);
    expect(expected(def, op, actorName, ownerId), `${op} ${def.name} as ${actorName}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`).toContain(
      res.status,
    );
    expect(res.body.success).toBe(res.status < 300);
  });
});

describe('the route table', () => {
  it('refuses at startup a signed-in route that declares no permission', async () => {
    const { ApiRouter } = await import('../../api/src/http/api-router.ts');
    const { OpenApiRegistry } = await import('../../api/src/openapi/registry.ts');
    const api = new ApiRouter(new OpenApiRegistry(), '/things', 'Things');
    expect(() => api.get('/', { summary: 'no permission', response: null }, async () => undefined)).toThrow(/declares no permission/);
    expect(() => api.get('/open', { summary: 'public', auth: 'public', response: null }, async () => undefined)).not.toThrow();
  });
});
