import type { Page } from '../http/list-query.ts';
import { accessVersionOf, deepFreeze } from '../auth/access-cache.ts';
import type { ServiceContext } from '../platform/context.ts';

/**
 * Pages of the users list, kept per process under the access version (auth/access-cache.ts).
 * Everything a page shows (users, their roles, dealer details and effective permissions, the
 * total) is what the access version covers: every change to it raises the version in its own
 * transaction, so a page read under the version this call was authenticated under is current.
 * Which users a caller may see (its scope) is part of the key. Pages of an older version are
 * dropped when a newer one is seen; a call authenticated under an older version than the kept
 * pages (it began before a change) reads the database.
 */
const CAPACITY = 100;
let keptVersion: bigint | undefined;
const pages = new Map<string, Promise<Page<unknown>>>();

export async function cachedUsersPage<T>(
  ctx: ServiceContext,
  scope: string,
  state: string,
  query: Record<string, unknown>,
  load: () => Promise<Page<T>>,
): Promise<Page<T>> {
  const stamp = accessVersionOf(ctx.actor.user);
  if (stamp === undefined) return load();
  const version = BigInt(stamp);
  if (keptVersion === undefined || version > keptVersion) {
    pages.clear();
    keptVersion = version;
  } else if (version < keptVersion) return load();
  const key = `${scope}|${state}|${JSON.stringify(query)}`;
  const kept = pages.get(key) as Promise<Page<T>> | undefined;
  if (kept) {
    pages.delete(key);
    pages.set(key, kept);
    return kept;
  }
  // Calls that miss together share one read; a failed read is not kept.
  const loading = load().then(deepFreeze);
  while (pages.size >= CAPACITY) pages.delete(pages.keys().next().value!);
  pages.set(key, loading);
  loading.catch(() => {
    if (pages.get(key) === loading) pages.delete(key);
  });
  return loading;
}
