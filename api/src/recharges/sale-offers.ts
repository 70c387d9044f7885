import type { Knex } from 'knex';
import { storefrontCache } from '../storefront/storefront-cache.ts';
import { findStorefrontDealer, storefrontPaymentMethods, type StorefrontDealerRow } from '../storefront/storefront.service.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { readRoutingView, undeliverableReason } from '../routing/delivery-routes.ts';

/**
 * What a shop sells, as a purchase needs it (docs/decisions.md, "Purchases: priced from the shop's
 * offer"): every bundle the dealer offers now with its price, cost and operator, the payment
 * methods its customers may use, the currency and the dealer's wallet. Read in one go per shop and
 * kept in process, so a purchase's transaction holds only its writes (the recharge, the debit and
 * its ledger row, the log line).
 *
 * Freshness: dropped with the storefront's cached answers whenever a change commits in this
 * process (recordActivity clears them), and read again after at most OFFER_TTL_MS otherwise (a
 * change made by another process). A customer pays the price the shop showed them, which is
 * never older than that.
 */
export interface OfferedBundle {
  id: number;
  name: string;
  data_volume_mb: number | null;
  validity_days: number | null;
  /** The dealer's selling price (its own, else the company's suggested one), minor units. */
  price: number;
  cost: number;
  category_name: string;
  provider_id: number;
  provider_name: string;
  phone_prefixes: string[];
}

export interface SaleOffer {
  bundles: Map<number, OfferedBundle>;
  /** Bundles the dealer offers that no delivery route can deliver now, with why (routing/delivery-routes.ts). */
  undeliverable: Map<number, string>;
  methods: Awaited<ReturnType<typeof storefrontPaymentMethods>>;
  currency: string;
  walletId: number | null;
}

export const OFFER_TTL_MS = 5_000;
const MAX_SHOPS = 2_000;

type Db = Knex | Knex.Transaction;

async function loadOffer(db: Db, dealer: StorefrontDealerRow): Promise<SaleOffer> {
  const [bundles, methods, company, wallet] = await Promise.all([
    db('bundles')
      .join('categories', 'categories.id', 'bundles.category_id')
      .join('providers', 'providers.id', 'categories.provider_id')
      .join('dealer_bundles as db', (j) => j.on('db.bundle_id', 'bundles.id').andOn('db.dealer_id', db.raw('?', [dealer.id])))
      .join('dealer_categories as dc', (j) => j.on('dc.category_id', 'categories.id').andOn('dc.dealer_id', db.raw('?', [dealer.id])))
      .join('dealer_providers as dp', (j) => j.on('dp.provider_id', 'providers.id').andOn('dp.dealer_id', db.raw('?', [dealer.id])))
      .where({
        'bundles.status': 'active',
        'categories.status': 'active',
        'providers.status': 'active',
        'db.status': 'active',
        'dc.status': 'active',
        'dp.status': 'active',
      })
      .whereNull('bundles.deleted_at')
      .whereNull('categories.deleted_at')
      .whereNull('providers.deleted_at')
      .select(
        'bundles.id',
        'bundles.name',
        'bundles.data_volume_mb',
        'bundles.validity_days',
        'bundles.cost_price',
        'bundles.selling_price',
        'bundles.operator_product_code',
        'db.selling_price as own_price',
        'categories.name as category_name',
        'providers.id as provider_id',
        'providers.name as provider_name',
        'providers.phone_prefixes',
      ),
    storefrontPaymentMethods(db, dealer),
    readCompanySettings(db),
    db('wallets').where({ dealer_id: dealer.id, mode: 'live' }).first('id'),
  ]);
  const routing = await readRoutingView(db, [...new Set(bundles.map((b: { provider_id: number }) => Number(b.provider_id)))]);
  const offered = new Map<number, OfferedBundle>();
  const stranded = new Map<number, string>();
  for (const b of bundles) {
    const price = Number(b.own_price ?? b.selling_price);
    const cost = Number(b.cost_price);
    // Priced below its current cost (the company raised the cost): not offered, as on the shop.
    if (price < cost) continue;
    // No route can deliver it (its product withdrawn, none mapped): refused before any prompt, as the shop hides it.
    const undeliverable = undeliverableReason(routing, {
      id: Number(b.id),
      provider_id: Number(b.provider_id),
      cost,
      operator_product_code: b.operator_product_code ?? null,
    });
    if (undeliverable) {
      stranded.set(Number(b.id), undeliverable);
      continue;
    }
    offered.set(Number(b.id), {
      id: Number(b.id),
      name: b.name,
      data_volume_mb: b.data_volume_mb ?? null,
      validity_days: b.validity_days ?? null,
      price,
      cost,
      category_name: b.category_name,
      provider_id: Number(b.provider_id),
      provider_name: b.provider_name,
      phone_prefixes: b.phone_prefixes ? (JSON.parse(b.phone_prefixes) as string[]) : [],
    });
  }
  return { bundles: offered, undeliverable: stranded, methods, currency: company.currency, walletId: wallet ? Number(wallet.id) : null };
}

/** Kept for OFFER_TTL_MS at most, dropped on every committed change in this process; one read at a time per key. */
class ShopKept<T> {
  private entries = new Map<string, { at: number; value: Promise<T> }>();

  constructor() {
    storefrontCache.onClear(() => this.clear());
  }

  get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && Date.now() - hit.at < OFFER_TTL_MS) return hit.value;
    const entry = { at: Date.now(), value: load() };
    if (this.entries.size >= MAX_SHOPS) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
    // A failed read (an unknown shop, a database error) is not kept: the next purchase reads again.
    entry.value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.value;
  }

  clear(): void {
    this.entries.clear();
  }
}

const dealers = new ShopKept<StorefrontDealerRow>();
const offers = new ShopKept<SaleOffer>();

/** The active dealer of this shop code (findStorefrontDealer's answer, kept as above). */
export const sellingDealer = (db: Db, code: string): Promise<StorefrontDealerRow> => dealers.get(code.toUpperCase(), () => findStorefrontDealer(db, code));

/** The shop's offer. The pricing model decides the payment methods, so it is part of the key. */
export const saleOffer = (db: Db, dealer: StorefrontDealerRow): Promise<SaleOffer> =>
  offers.get(`${dealer.id}:${dealer.pricing_model}`, () => loadOffer(db, dealer));
