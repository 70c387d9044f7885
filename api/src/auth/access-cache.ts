import type { Knex } from 'knex';
import type { Permission } from '@app/contracts';
import type { User } from '../users/user.model.ts';

/**
 * The access version and the per-process cache of signed-in users (docs/architecture.md,
 * "Signed-in calls").
 *
 * `access_versions` (one row, id 1) counts changes to what a signed-in call knows about its user:
 * the user row, its roles, its dealer details, a role's permissions or trash state, the permission
 * catalogue. Every such change raises it in its own transaction (bumpAccessVersion; the activity
 * log does it for the logged changes of users and roles). Each call reads the version together
 * with its session row, so a cached user loaded under another version is loaded again, whichever
 * process made the change. Sessions (sign-out, revocation, lock, expiry) and the user's status and
 * trash state are read fresh on every call and need no version.
 */
export const ACCESS_VERSION_TABLE = 'access_versions';

const bumped = new WeakSet<object>();
const isTransaction = (db: Knex | Knex.Transaction): db is Knex.Transaction => (db as Knex.Transaction).isTransaction === true;

/**
 * Raise the access version on `db`: pass the transaction of the change, so the new version and the
 * change are seen together (once per transaction; a retried unit of work has a new one).
 */
export async function bumpAccessVersion(db: Knex | Knex.Transaction): Promise<void> {
  if (isTransaction(db) && bumped.has(db)) return;
  await db(ACCESS_VERSION_TABLE).where('id', 1).increment('version', 1);
  if (isTransaction(db)) bumped.add(db);
}

/**
 * What a signed-in call knows about its user besides the session. Shared by every call that finds
 * it, so it is frozen: the user graph (deeply) and the permissions (a set that refuses changes).
 */
export interface CachedAccess {
  /** The access version read before the user was loaded. */
  readonly version: string;
  readonly user: User;
  readonly permissions: Set<Permission>;
  readonly isSuperAdmin: boolean;
}

/** A set whose contents cannot change: the cached permissions are shared by every call of a session. */
class FrozenSet<T> extends Set<T> {
  #sealed = false;
  constructor(values: Iterable<T>) {
    super();
    for (const value of values) super.add(value);
    this.#sealed = true;
  }
  override add(value: T): this {
    if (this.#sealed) throw new TypeError('The permissions of a signed-in user are read-only');
    return super.add(value);
  }
  override delete(): boolean {
    throw new TypeError('The permissions of a signed-in user are read-only');
  }
  override clear(): void {
    throw new TypeError('The permissions of a signed-in user are read-only');
  }
}

/** Freezes `value` and everything it holds (a shared answer nobody may change). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const versionOfUser = new WeakMap<object, string>();

export function frozenAccess(version: string, user: User, permissions: Iterable<Permission>, isSuperAdmin: boolean): CachedAccess {
  if (version) versionOfUser.set(user, version);
  return Object.freeze({ version, user: deepFreeze(user), permissions: new FrozenSet(permissions), isSuperAdmin });
}

/**
 * The access version a signed-in call was authenticated under (its actor's user is the cached
 * object, current under that version), or undefined: what this call reads is at least that new.
 */
export function accessVersionOf(user: object | null | undefined): string | undefined {
  return user ? versionOfUser.get(user) : undefined;
}

/**
 * Sessions' users by session id, each with the version it was loaded under; bounded, the least
 * recently used entry goes first (a Map keeps insertion order: a hit moves its entry to the end).
 */
export class AccessCache {
  readonly #entries = new Map<string, CachedAccess>();
  constructor(readonly capacity = 10_000) {}

  /** The entry of this session if it was loaded under `version`; an entry of another version is dropped. */
  get(sessionId: string, version: string): CachedAccess | undefined {
    const entry = this.#entries.get(sessionId);
    if (!entry) return undefined;
    this.#entries.delete(sessionId);
    if (entry.version !== version) return undefined;
    this.#entries.set(sessionId, entry);
    return entry;
  }

  /** Keeps `entry` unless the session's entry was loaded under a newer version meanwhile. */
  set(sessionId: string, entry: CachedAccess): void {
    const kept = this.#entries.get(sessionId);
    if (kept && BigInt(kept.version) > BigInt(entry.version)) return;
    this.#entries.delete(sessionId);
    while (this.#entries.size >= this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(sessionId, entry);
  }

  has(sessionId: string): boolean {
    return this.#entries.has(sessionId);
  }

  delete(sessionId: string): void {
    this.#entries.delete(sessionId);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}

export const accessCache = new AccessCache();
