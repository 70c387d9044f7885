import { useCallback, useEffect, useState } from 'react';
import { ApiError, type Bundle, type Provider, type Recharge } from '../api';
import { currentLanguage, t } from '../i18n';
import { loadOrder } from '../offline-cache';
import { isOpen, Ltr, Name, OutcomeWords, rich, StatusChip, statusLabel, toneOf, useFollow } from '../outcome';
import { onLinkClick, orderPath, pathOf } from '../router';
import { fetchRecharge, money } from '../shop-data';

/** The API's public references: RC and 10 letters or digits (anything else is no order of this shop). */
const REFERENCE = /^RC[A-Z0-9]{10}$/;

/**
 * "27 Nofeembar 2026, 12:30" in Somali: month names from storefront.json, as browsers' Somali
 * dates are no good ("2026 M11 27" where the phone's ICU has no Somali month names).
 */
export const somaliDate = (d: Date) => {
  const months = t('order.months').split(',');
  const time = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  return `${d.getDate()} ${months[d.getMonth()] ?? d.getMonth() + 1} ${d.getFullYear()}, ${time}`;
};

export const dateOf = (iso: string | null) => {
  if (!iso) return '';
  const lng = currentLanguage();
  if (lng === 'so') return somaliDate(new Date(iso));
  // Latin digits, as everywhere else in the shop (prices, numbers, references).
  const locale = lng === 'ae' ? 'ar-u-nu-latn' : 'en';
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
  } catch {
    return iso;
  }
};

/**
 * The bundle of an order in today's catalogue, to buy it again: by its id (the API says which), else
 * (an answer kept from before it did) by operator and bundle name.
 */
function findBundle(providers: Provider[], r: Recharge): { provider: Provider; bundle: Bundle } | null {
  for (const provider of providers) {
    for (const c of provider.categories) {
      const bundle = c.bundles.find((b) => (r.bundle_id ? b.id === r.bundle_id : provider.name === r.provider_name && b.name === r.bundle_name));
      if (bundle) return { provider, bundle };
    }
  }
  return null;
}

/** Values isolated in their own direction inside a right-to-left text (a shared message has no <bdi>). */
const isolate = (v: string) => (currentLanguage() === 'ae' ? `\u2068${v}\u2069` : v);

/** A WhatsApp message with the order's receipt and its page, in the reader's language. */
export function shareLink(code: string, shop: string, r: Recharge): string {
  const text = t('order.share_text', {
    reference: isolate(r.reference),
    shop: isolate(shop),
    bundle: isolate(`${r.provider_name} · ${r.bundle_name}`),
    phone: isolate(r.phone),
    amount: isolate(money(r.amount, r.currency)),
    status: statusLabel(r),
    url: `${location.origin}${orderPath(code, r.reference)}`,
  });
  return `https://wa.me/?text=${encodeURIComponent(text)}`;
}

/**
 * An order's page, /dealer/{code}/order/{reference}: reachable any time later (a bookmark, a shared
 * link), it shows the bundle, the partly hidden number, the amount, the date, a status chip and the
 * outcome's words, and asks again by itself while the order is open. Offline it says checking needs
 * a connection and shows the last known state kept on this phone, if any.
 */
export default function OrderPage({
  code,
  reference,
  shop,
  providers,
  online,
  onBuy,
}: {
  code: string;
  reference: string;
  shop: string;
  providers: Provider[];
  online: boolean;
  onBuy: (provider: Provider, bundle: Bundle) => void;
}) {
  const valid = REFERENCE.test(reference);
  const [saved] = useState(() => (valid ? loadOrder(code, reference) : null));
  const [recharge, setRecharge] = useState<Recharge | null>(saved);
  const [fresh, setFresh] = useState(false);
  const [missing, setMissing] = useState(!valid);
  const [error, setError] = useState<string | null>(null);
  // The order's operator and bundle come in the page's language: asked again on a language switch.
  const lng = currentLanguage();

  const load = useCallback(async () => {
    setError(null);
    try {
      setRecharge(await fetchRecharge(code, reference));
      setFresh(true);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) setMissing(true);
      else setError(err instanceof ApiError ? err.message : t('errors.unexpected'));
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [code, reference, lng]);

  useEffect(() => {
    if (valid && online) void load();
  }, [valid, online, load]);

  // Follows the language switch at once (the page re-renders with the new language).
  useEffect(() => {
    document.title = missing ? t('order.not_found') : t('order.page_title', { reference, shop });
  }, [missing, reference, shop, lng]);

  const { stopped, restart } = useFollow(code, fresh ? recharge : null, setRecharge, online);
  const home = pathOf({ code, providerId: null, categoryId: null });
  const back = (
    <a href={home} onClick={(e) => onLinkClick(e, home)} className="button secondary">
      {t('order.back_to_shop')}
    </a>
  );

  if (missing) {
    return (
      <section className="center" aria-labelledby="order-title">
        <h1 id="order-title">{t('order.not_found')}</h1>
        <p>{rich('order.not_found_text', { reference })}</p>
        <div className="actions">{back}</div>
      </section>
    );
  }

  const open = !!recharge && isOpen(recharge);
  const again = recharge && !open ? findBundle(providers, recharge) : null;
  return (
    <section aria-labelledby="order-title">
      <nav aria-label={t('shop.breadcrumb')} className="crumbs">
        <a href={home} onClick={(e) => onLinkClick(e, home)}>
          {t('shop.home')}
        </a>
        {' / '}
        <span aria-current="page">{t('order.crumb')}</span>
      </nav>
      <h1 id="order-title">{rich('order.title', { reference })}</h1>
      {!online && (
        <p className="note" role="status">
          {t('order.offline')}
          {saved && !fresh ? ` ${t('order.last_known', { time: dateOf(new Date(saved.checkedAt).toISOString()) })}` : ''}
        </p>
      )}
      {error && (
        <div className="alert" role="alert">
          <p>{error}</p>
          <button type="button" onClick={() => void load()}>
            {t('common.retry')}
          </button>
        </div>
      )}
      {!recharge && online && !error && (
        <p className="loading" role="status">
          {t('common.loading')}
        </p>
      )}
      {recharge && (
        <div className="card order">
          <div className={`status ${toneOf(recharge)}`}>
            <OutcomeWords recharge={recharge} following={open && fresh && online && !stopped} />
            {open && stopped && (
              <p>
                {t('outcome.check_later_here')}{' '}
                <button type="button" className="secondary" onClick={restart}>
                  {t('outcome.check_again')}
                </button>
              </p>
            )}
          </div>
          <dl className="facts">
            <dt>{t('order.bundle')}</dt>
            <dd>
              <Name>{recharge.provider_name}</Name>
              {' · '}
              <Name>{recharge.bundle_name}</Name>
            </dd>
            <dt>{t('order.number')}</dt>
            <dd>
              <Ltr>{recharge.phone}</Ltr>
            </dd>
            <dt>{t('order.amount')}</dt>
            <dd>
              <Ltr>{money(recharge.amount, recharge.currency)}</Ltr>
            </dd>
            <dt>{t('order.date')}</dt>
            <dd>
              <bdi>{dateOf(recharge.created_at)}</bdi>
            </dd>
            <dt>{t('order.status')}</dt>
            <dd>
              <StatusChip recharge={recharge} />
            </dd>
          </dl>
        </div>
      )}
      <div className="actions">
        {again && (
          <button type="button" className="primary" onClick={() => onBuy(again.provider, again.bundle)}>
            {t('order.buy_again')}
          </button>
        )}
        {recharge && (
          <a href={shareLink(code, shop, recharge)} className="button secondary share" target="_blank" rel="noopener noreferrer">
            {t('order.share')}
          </a>
        )}
        {back}
      </div>
    </section>
  );
}
