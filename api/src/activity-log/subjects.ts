import type { Knex } from 'knex';
import type { LogSubject } from '@app/contracts';

/**
 * What a log entry is about, as people name it: the user's or role's name, a banner's title, a
 * sale's reference, the dealer a wallet belongs to... with the ids the console needs to link to
 * the subject's page (a user's type, a category's operator, a wallet's dealer). Records gone for
 * good are named from the snapshot the entry kept (before/after).
 */
export type { LogSubject };

interface Row {
  subject_type: string | null;
  subject_id: number | null;
  description: string | null;
  before: unknown;
  after: unknown;
}

type Found = { name: string | null; user_type?: string; dealer_id?: number; provider_id?: number; category_id?: number; deleted_at?: unknown };
type Lookup = (db: Knex, ids: number[]) => Promise<Map<number, Found>>;

const byId = (rows: Array<Record<string, unknown>>, pick: (r: Record<string, any>) => Found) => new Map(rows.map((r) => [Number(r.id), pick(r)]));
const num = (v: unknown) => (v === null || v === undefined ? undefined : Number(v));

const LOOKUPS: Record<string, Lookup> = {
  user: async (db, ids) =>
    byId(await db('users').whereIn('id', ids).select('id', 'name', 'user_type', 'deleted_at'), (r) => ({
      name: r.name,
      user_type: r.user_type,
      deleted_at: r.deleted_at,
    })),
  role: async (db, ids) => byId(await db('roles').whereIn('id', ids).select('id', 'name', 'deleted_at'), (r) => ({ name: r.name, deleted_at: r.deleted_at })),
  banner: async (db, ids) =>
    byId(await db('banners').whereIn('id', ids).select('id', 'title', 'deleted_at'), (r) => ({ name: r.title, deleted_at: r.deleted_at })),
  provider: async (db, ids) =>
    byId(await db('providers').whereIn('id', ids).select('id', 'name', 'deleted_at'), (r) => ({ name: r.name, deleted_at: r.deleted_at })),
  category: async (db, ids) =>
    byId(await db('categories').whereIn('id', ids).select('id', 'name', 'provider_id', 'deleted_at'), (r) => ({
      name: r.name,
      provider_id: num(r.provider_id),
      deleted_at: r.deleted_at,
    })),
  bundle: async (db, ids) =>
    byId(
      await db('bundles')
        .leftJoin('categories', 'categories.id', 'bundles.category_id')
        .whereIn('bundles.id', ids)
        .select('bundles.id', 'bundles.name', 'bundles.category_id', 'categories.provider_id', 'bundles.deleted_at'),
      (r) => ({ name: r.name, category_id: num(r.category_id), provider_id: num(r.provider_id), deleted_at: r.deleted_at }),
    ),
  payment_method: async (db, ids) =>
    byId(await db('payment_methods').whereIn('id', ids).select('id', 'name', 'deleted_at'), (r) => ({ name: r.name, deleted_at: r.deleted_at })),
  contact: async (db, ids) =>
    byId(await db('contacts').whereIn('id', ids).select('id', 'label', 'value', 'deleted_at'), (r) => ({ name: r.label || r.value, deleted_at: r.deleted_at })),
  area: async (db, ids) => byId(await db('areas').whereIn('id', ids).select('id', 'name', 'deleted_at'), (r) => ({ name: r.name, deleted_at: r.deleted_at })),
  wallet: async (db, ids) =>
    byId(
      await db('wallets').leftJoin('users', 'users.id', 'wallets.dealer_id').whereIn('wallets.id', ids).select('wallets.id', 'wallets.dealer_id', 'users.name'),
      (r) => ({ name: r.name, dealer_id: num(r.dealer_id) }),
    ),
  wallet_top_up_request: async (db, ids) =>
    byId(
      await db('wallet_top_up_requests')
        .leftJoin('users', 'users.id', 'wallet_top_up_requests.dealer_id')
        .whereIn('wallet_top_up_requests.id', ids)
        .select('wallet_top_up_requests.id', 'wallet_top_up_requests.dealer_id', 'wallet_top_up_requests.reference', 'users.name'),
      (r) => ({ name: r.name ? `${r.reference} (${r.name})` : r.reference, dealer_id: num(r.dealer_id) }),
    ),
  recharge: async (db, ids) => byId(await db('recharges').whereIn('id', ids).select('id', 'reference'), (r) => ({ name: r.reference ?? null })),
  // The daily close: a day, and one of its differences (named by its day and reference).
  daily_close: async (db, ids) => byId(await db('daily_closes').whereIn('id', ids).select('id', 'day'), (r) => ({ name: r.day })),
  daily_close_difference: async (db, ids) =>
    byId(await db('daily_close_differences').whereIn('id', ids).select('id', 'day', 'reference'), (r) => ({
      name: r.reference && !String(r.reference).startsWith('~') ? `${r.day} ${r.reference}` : r.day,
    })),
  api_key: async (db, ids) =>
    byId(
      await db('api_keys')
        .leftJoin('users', 'users.id', 'api_keys.dealer_id')
        .whereIn('api_keys.id', ids)
        .select('api_keys.id', 'api_keys.name', 'api_keys.dealer_id', 'users.name as dealer_name'),
      (r) => ({ name: r.dealer_name ? `${r.name} (${r.dealer_name})` : r.name, dealer_id: num(r.dealer_id) }),
    ),
  dealer_provider: async (db, ids) =>
    byId(
      await db('dealer_providers')
        .leftJoin('providers', 'providers.id', 'dealer_providers.provider_id')
        .leftJoin('users', 'users.id', 'dealer_providers.dealer_id')
        .whereIn('dealer_providers.id', ids)
        .select('dealer_providers.id', 'dealer_providers.dealer_id', 'providers.name', 'users.name as dealer_name'),
      (r) => ({ name: r.dealer_name ? `${r.name} (${r.dealer_name})` : r.name, dealer_id: num(r.dealer_id) }),
    ),
  dealer_category: async (db, ids) =>
    byId(
      await db('dealer_categories')
        .leftJoin('categories', 'categories.id', 'dealer_categories.category_id')
        .leftJoin('users', 'users.id', 'dealer_categories.dealer_id')
        .whereIn('dealer_categories.id', ids)
        .select('dealer_categories.id', 'dealer_categories.dealer_id', 'categories.name', 'users.name as dealer_name'),
      (r) => ({ name: r.dealer_name ? `${r.name} (${r.dealer_name})` : r.name, dealer_id: num(r.dealer_id) }),
    ),
  dealer_bundle: async (db, ids) =>
    byId(
      await db('dealer_bundles')
        .leftJoin('bundles', 'bundles.id', 'dealer_bundles.bundle_id')
        .leftJoin('users', 'users.id', 'dealer_bundles.dealer_id')
        .whereIn('dealer_bundles.id', ids)
        .select('dealer_bundles.id', 'dealer_bundles.dealer_id', 'bundles.name', 'users.name as dealer_name'),
      (r) => ({ name: r.dealer_name ? `${r.name} (${r.dealer_name})` : r.name, dealer_id: num(r.dealer_id) }),
    ),
};

const parsed = (v: unknown): Record<string, unknown> => {
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return {};
    }
  }
  return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
};

/** A name the entry kept itself: a deleted record's snapshot (name, title, reference, label). */
function snapshotName(row: Row): string | null {
  for (const side of [parsed(row.before), parsed(row.after)]) {
    for (const k of ['name', 'title', 'reference', 'label', 'bundle']) if (typeof side[k] === 'string' && side[k]) return side[k] as string;
  }
  return null;
}

/** The subjects of these entries, in their order (null for an entry about nothing). */
export async function describeSubjects(db: Knex, rows: Row[]): Promise<Array<LogSubject | null>> {
  const wanted = new Map<string, Set<number>>();
  for (const r of rows) {
    if (r.subject_type && r.subject_id && LOOKUPS[r.subject_type]) {
      if (!wanted.has(r.subject_type)) wanted.set(r.subject_type, new Set());
      wanted.get(r.subject_type)!.add(Number(r.subject_id));
    }
  }
  const found = new Map<string, Map<number, Found>>();
  await Promise.all(
    [...wanted].map(async ([type, ids]) => {
      found.set(type, await LOOKUPS[type](db, [...ids]));
    }),
  );
  return rows.map((r) => {
    if (!r.subject_type) return null;
    const id = r.subject_id ? Number(r.subject_id) : null;
    // Settings entries name their group (company, mail, money) in the description.
    if (r.subject_type === 'settings') return { type: r.subject_type, id, name: r.description ?? null };
    const hit = id ? found.get(r.subject_type)?.get(id) : undefined;
    if (!hit) return { type: r.subject_type, id, name: snapshotName(r), ...(id ? { gone: true } : {}) };
    const { deleted_at, ...rest } = hit;
    const subject: LogSubject = { type: r.subject_type, id, ...rest, name: rest.name ?? snapshotName(r) };
    for (const k of ['user_type', 'dealer_id', 'provider_id', 'category_id'] as const) if (subject[k] === undefined) delete subject[k];
    if (deleted_at) subject.gone = true;
    return subject;
  });
}
