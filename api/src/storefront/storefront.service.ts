import type { Knex } from 'knex';
import { formatMinor, gatewayOf, nationalNumber, promptsPayer, translatedStoredText, type StorefrontDealer, type StorefrontProviders } from '@app/contracts';
import { encodeId } from '../http/ids.ts';
import { notFound } from '../http/errors.ts';
import { readRoutingView, undeliverableReason } from '../routing/delivery-routes.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { activePaymentMethods } from '../settings/payment-methods.ts';

/**
 * What a dealer's storefront reads (docs/api-conventions.md, "Storefront calls"): public fields only,
 * active records only, the dealer's selling prices and never a cost. A bundle priced below its
 * current cost (the company raised the cost after the dealer set a price) is not offered.
 *
 * Texts a dealer or an admin typed (names, descriptions, titles, labels, instructions) are
 * answered in `lang`, the customer's language, when translated (the record's `translations`),
 * else as typed; without `lang`, as typed.
 */
type Db = Knex | Knex.Transaction;

/** `row[field]` in `lang` (row.translations is the stored JSON text), falling back to the original. */
const inLanguage = <T extends string | null>(row: { translations?: unknown }, lang: string | undefined, field: string, original: T): T | string =>
  lang ? translatedStoredText(row.translations, lang, field, original) : original;

export interface StorefrontDealerRow {
  id: number;
  name: string;
  dealer_code: string;
  pricing_model: 'cost' | 'profit';
  company_name: string | null;
  logo_path: string | null;
  brand_color: string | null;
  description: string | null;
  website: string | null;
  /** dealer_details.translations (JSON text): company_name and description per language. */
  translations?: string | null;
}

/** The active dealer with this code (in any letter case), or 404 with a message a customer understands. */
export async function findStorefrontDealer(db: Db, code: string): Promise<StorefrontDealerRow> {
  const row = await db('users')
    .leftJoin('dealer_details', 'dealer_details.user_id', 'users.id')
    // Codes are case-insensitive on both engines, through the unique index: MariaDB's collation
    // already ignores case; SQLite's index is COLLATE NOCASE (migration 20261124A).
    .where((w) => (db.client.config.client === 'mysql2' ? w.where('users.dealer_code', code) : w.whereRaw('users.dealer_code = ? COLLATE NOCASE', [code])))
    .where({ 'users.user_type': 'dealer', 'users.status': 'active' })
    .whereNull('users.deleted_at')
    .first(
      'users.id',
      'users.name',
      'users.dealer_code',
      'dealer_details.pricing_model',
      'dealer_details.company_name',
      'dealer_details.logo_path',
      'dealer_details.brand_color',
      'dealer_details.description',
      'dealer_details.website',
      'dealer_details.translations',
    );
  if (!row) throw notFound('api:storefront.dealer_not_found');
  return row as StorefrontDealerRow;
}

/**
 * Contacts a storefront shows: the phone and email the dealer typed on My shop first, then the
 * dealer's own contact entries, then the company's (dealer_id null). A value already listed is not
 * shown twice.
 */
export async function storefrontContacts(db: Db, dealerId: number, lang?: string) {
  const shop: { contact_phone: string | null; contact_email: string | null } | undefined = await db('dealer_details')
    .where({ user_id: dealerId })
    .first('contact_phone', 'contact_email');
  const rows: {
    id: number;
    type: StorefrontDealer['dealer']['contacts'][number]['type'];
    label: string | null;
    value: string;
    dealer_id: number | null;
    translations: string | null;
  }[] = await db('contacts')
    .whereNull('deleted_at')
    .where('status', 'active')
    .where((w) => w.where('dealer_id', dealerId).orWhereNull('dealer_id'))
    .orderByRaw('CASE WHEN dealer_id IS NULL THEN 1 ELSE 0 END')
    .orderBy([{ column: 'sort_order' }, { column: 'id' }])
    .select('id', 'type', 'label', 'value', 'dealer_id', 'translations');
  const listed = rows.map((r) => ({ id: r.id, type: r.type, label: inLanguage(r, lang, 'label', r.label ?? null), value: r.value }));
  // Already listed: the same kind of contact with the same value (a number however it is written).
  const sameAs = (type: string, value: string) =>
    `${type}:${type === 'phone' ? (nationalNumber(value) ?? value.replace(/\s+/g, '')) : value.trim().toLowerCase()}`;
  const known = new Set(listed.map((c) => sameAs(c.type, c.value)));
  // The shop's own (no row of the contacts table: negative ids keep them apart).
  const own = [
    { id: -1, type: 'phone' as const, label: null, value: shop?.contact_phone ?? '' },
    { id: -2, type: 'email' as const, label: null, value: shop?.contact_email ?? '' },
  ].filter((c) => c.value.trim() !== '' && !known.has(sameAs(c.type, c.value)));
  return [...own, ...listed];
}

export async function storefrontDealer(db: Db, dealer: StorefrontDealerRow, lang?: string): Promise<StorefrontDealer> {
  const [contacts, banners, company] = await Promise.all([
    storefrontContacts(db, dealer.id, lang),
    db('banners')
      .whereNull('deleted_at')
      .where('status', 'active')
      .where((w) => w.where('dealer_id', dealer.id).orWhereNull('dealer_id'))
      .orderBy([{ column: 'sort_order' }, { column: 'id' }])
      .select('id', 'title', 'image_path', 'link_url', 'translations'),
    readCompanySettings(db),
  ]);
  return {
    dealer: {
      code: dealer.dealer_code,
      name: dealer.name,
      company_name: inLanguage(dealer, lang, 'company_name', dealer.company_name ?? null),
      logo: dealer.logo_path ?? null,
      brand_color: dealer.brand_color || '#3B82F6',
      description: inLanguage(dealer, lang, 'description', dealer.description ?? null),
      website: dealer.website ?? null,
      contacts: contacts.map(({ type, label, value }) => ({ type, label, value })),
      currency: company.currency,
    },
    banners: banners.map((b: { id: number; title: string; image_path: string; link_url: string | null; translations: string | null }) => ({
      id: b.id,
      title: inLanguage(b, lang, 'title', b.title),
      image: b.image_path,
      link_url: b.link_url ?? null,
    })),
  };
}

/**
 * The dealer's offer as one tree: operators it has on, their categories it has on, their bundles
 * it has on, all active in the company catalogue, at the dealer's price. Three queries, whatever
 * the size.
 */
export async function storefrontProviders(db: Db, dealerId: number, lang?: string): Promise<StorefrontProviders> {
  const [providers, categories, bundles, company] = await Promise.all([
    db('providers')
      .join('dealer_providers as own', 'own.provider_id', 'providers.id')
      .where({ 'own.dealer_id': dealerId, 'own.status': 'active', 'providers.status': 'active' })
      .whereNull('providers.deleted_at')
      .orderBy([{ column: 'providers.sort_order' }, { column: 'providers.id' }])
      .select('providers.id', 'providers.name', 'providers.code', 'providers.logo_path', 'providers.phone_prefixes', 'providers.translations'),
    db('categories')
      .join('dealer_categories as own', 'own.category_id', 'categories.id')
      .where({ 'own.dealer_id': dealerId, 'own.status': 'active', 'categories.status': 'active' })
      .whereNull('categories.deleted_at')
      .orderBy([{ column: 'categories.sort_order' }, { column: 'categories.id' }])
      .select('categories.id', 'categories.provider_id', 'categories.name', 'categories.description', 'categories.translations'),
    db('bundles')
      .join('dealer_bundles as own', 'own.bundle_id', 'bundles.id')
      .where({ 'own.dealer_id': dealerId, 'own.status': 'active', 'bundles.status': 'active' })
      .whereNull('bundles.deleted_at')
      .orderBy([{ column: 'bundles.sort_order' }, { column: 'bundles.id' }])
      .select(
        'bundles.id',
        'bundles.category_id',
        'bundles.name',
        'bundles.data_volume_mb',
        'bundles.validity_days',
        'bundles.cost_price',
        'bundles.selling_price',
        'bundles.operator_product_code',
        'bundles.translations',
        'own.selling_price as own_price',
      ),
    readCompanySettings(db),
  ]);
  const providerOf = new Map<number, number>(categories.map((c: { id: number; provider_id: number }) => [Number(c.id), Number(c.provider_id)]));
  const routing = await readRoutingView(db, [...new Set(providerOf.values())]);
  const bundlesOf = new Map<number, StorefrontProviders['providers'][number]['categories'][number]['bundles']>();
  for (const b of bundles) {
    const price = b.own_price === null || b.own_price === undefined ? Number(b.selling_price) : Number(b.own_price);
    if (price < Number(b.cost_price)) continue;
    const providerId = providerOf.get(Number(b.category_id));
    // Not offered when no route can deliver it (its product withdrawn at every aggregator, none mapped).
    if (
      providerId === undefined ||
      undeliverableReason(routing, {
        id: Number(b.id),
        provider_id: providerId,
        cost: Number(b.cost_price),
        operator_product_code: b.operator_product_code ?? null,
      })
    )
      continue;
    const list = bundlesOf.get(b.category_id) ?? [];
    list.push({
      id: b.id,
      h_id: encodeId(b.id),
      name: inLanguage(b, lang, 'name', b.name as string),
      data_volume_mb: b.data_volume_mb ?? null,
      validity_days: b.validity_days,
      price: formatMinor(price),
    });
    bundlesOf.set(b.category_id, list);
  }
  const categoriesOf = new Map<number, StorefrontProviders['providers'][number]['categories']>();
  for (const c of categories) {
    const list = bundlesOf.get(c.id);
    if (!list?.length) continue; // nothing to buy there
    const cats = categoriesOf.get(c.provider_id) ?? [];
    cats.push({
      id: c.id,
      h_id: encodeId(c.id),
      name: inLanguage(c, lang, 'name', c.name as string),
      description: inLanguage(c, lang, 'description', (c.description ?? null) as string | null),
      bundles: list,
    });
    categoriesOf.set(c.provider_id, cats);
  }
  return {
    currency: company.currency,
    providers: providers
      .filter((p: { id: number }) => categoriesOf.has(p.id))
      .map((p: { id: number; name: string; code: string; logo_path: string | null; phone_prefixes: string | null; translations: string | null }) => ({
        id: p.id,
        h_id: encodeId(p.id),
        name: inLanguage(p, lang, 'name', p.name),
        code: p.code,
        logo: p.logo_path ?? null,
        phone_prefixes: p.phone_prefixes ? (JSON.parse(p.phone_prefixes) as string[]) : [],
        categories: categoriesOf.get(p.id)!,
      })),
  };
}

/** The wallets' own names, as customers know them (the same in every language). */
const WALLET_NAMES: Partial<Record<string, string>> = { evc_plus: 'EVC Plus', zaad: 'Zaad', sahal: 'Sahal', edahab: 'eDahab' };

/**
 * A payment method's name as a customer reads it: a mobile wallet by its own name ("EVC Plus"),
 * never the label an admin gave the record to tell it apart in the console ("EVC Plus (company)");
 * cash and bank by their name in the customer's language.
 */
export const customerMethodName = (m: { type: string; name: string; translations?: unknown }, lang?: string) =>
  WALLET_NAMES[m.type] ?? inLanguage(m, lang, 'name', m.name);

/**
 * A purchase's operator and bundle names in the customer's language (the catalogue records'
 * translations; the names kept on the sale when there are none), with the bundle's id so that the
 * shop can offer it again.
 */
export async function inCustomerLanguage<T extends { provider_name: string; bundle_name: string }>(
  db: Db,
  pairs: { row: { bundle_id?: number | null; provider_id?: number | null }; answer: T }[],
  lang?: string,
): Promise<(T & { bundle_id: number | null })[]> {
  const ids = (key: 'bundle_id' | 'provider_id') => [...new Set(pairs.map((p) => p.row[key]).filter((id): id is number => !!id))];
  const [bundleIds, providerIds] = [ids('bundle_id'), ids('provider_id')];
  const [bundles, providers] = await Promise.all([
    lang && bundleIds.length ? db('bundles').whereIn('id', bundleIds).select('id', 'translations') : [],
    lang && providerIds.length ? db('providers').whereIn('id', providerIds).select('id', 'translations') : [],
  ]);
  const byId = (rows: { id: number; translations: string | null }[]) => new Map(rows.map((r) => [Number(r.id), r]));
  const [bundleOf, providerOf] = [byId(bundles), byId(providers)];
  return pairs.map(({ row, answer }) => {
    const bundle = row.bundle_id ? bundleOf.get(Number(row.bundle_id)) : undefined;
    const provider = row.provider_id ? providerOf.get(Number(row.provider_id)) : undefined;
    return {
      ...answer,
      bundle_name: bundle ? inLanguage(bundle, lang, 'name', answer.bundle_name) : answer.bundle_name,
      provider_name: provider ? inLanguage(provider, lang, 'name', answer.provider_name) : answer.provider_name,
      bundle_id: row.bundle_id ? Number(row.bundle_id) : null,
    };
  });
}

/**
 * How a storefront's customers pay. "Cost + Profit": the customer pays the dealer, so the dealer's
 * own methods. "Profit Only": the company collects, so the company's methods.
 */
export async function storefrontPaymentMethods(db: Db, dealer: StorefrontDealerRow, lang?: string) {
  const methods =
    dealer.pricing_model === 'profit' ? await activePaymentMethods(db, null) : await activePaymentMethods(db, dealer.id, { includeCompany: false });
  return methods.map((m) => ({
    id: m.id,
    h_id: encodeId(m.id),
    name: customerMethodName(m, lang),
    type: m.type,
    // Cash and bank are paid in person whatever the row's gateway says.
    gateway: gatewayOf(m),
    prompts_payer: promptsPayer(m),
    account_number: m.account_number ?? null,
    instructions: inLanguage(m, lang, 'instructions', m.instructions ?? null),
    logo: m.logo_path ?? null,
  }));
}
