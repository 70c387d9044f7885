import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import type { Bundle, Provider, Recharge } from './api';
import { ApiError } from './api';
import { currentLanguage, LANGUAGES, switchLanguage, t } from './i18n';
import { onLinkClick, orderPath, parseRoute, pathOf, useLocation, type Route } from './router';
import { fetchMyRecharges, money, useShop, volumeLabel } from './shop-data';
import { Banners } from './components/Banners';
import { Contacts, PaymentMethods } from './components/Contacts';
import { PurchaseDialog } from './components/PurchaseDialog';
import { registerServiceWorker } from './sw-register';
import { saveShop } from './offline-cache';
import { Ltr, Name, rich, StatusChip } from './outcome';

// An order's page is opened from a link or a bookmark, rarely: its code loads when it is.
const OrderPage = lazy(() => import('./components/OrderPage'));

/** Runs `fn` when the browser is idle (within a second), or soon where it cannot say; answers a cancel. */
function whenIdle(fn: () => void): () => void {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(fn, { timeout: 1000 });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(fn, 50);
  return () => clearTimeout(id);
}

function useOnline() {
  const [online, setOnline] = useState(navigator.onLine);
  useEffect(() => {
    const on = () => setOnline(true);
    const off = () => setOnline(false);
    window.addEventListener('online', on);
    window.addEventListener('offline', off);
    return () => {
      window.removeEventListener('online', on);
      window.removeEventListener('offline', off);
    };
  }, []);
  return online;
}

export function App() {
  const path = useLocation();
  const route = parseRoute(path);
  const [lang, setLang] = useState(currentLanguage());
  if (!route || !route.code) {
    if (route && !route.code) console.warn('Empty dealer code ignored');
    return <NotFound lang={lang} />;
  }
  return <Shop route={route} lang={lang} onLanguage={(l) => void switchLanguage(l).then(() => setLang(l))} />;
}

function Shop({ route, lang, onLanguage }: { route: Route; lang: string; onLanguage: (l: (typeof LANGUAGES)[number]) => void }) {
  const online = useOnline();
  const { dealer, providers, contacts, payments, closed } = useShop(route.code);
  const [buying, setBuying] = useState<{ provider: Provider; bundle: Bundle } | null>(null);
  const [mine, setMine] = useState<Recharge[]>([]);
  // An empty answer over an empty list draws nothing again (the usual first visit).
  const refreshMine = useCallback(
    () =>
      void fetchMyRecharges(route.code).then(
        (list) => setMine((was) => (was.length || list.length ? list : was)),
        () => undefined,
      ),
    [route.code],
  );
  useEffect(() => {
    if (online) refreshMine();
  }, [refreshMine, online]);
  useEffect(() => {
    void registerServiceWorker(route.code);
  }, [route.code]);
  // The data the page came with is kept for offline visits too: once the browser is idle, in a task
  // of its own, so that the first screen's work stays short on a slow phone.
  useEffect(
    () =>
      whenIdle(() => {
        if (dealer.data) saveShop(route.code, { dealer: dealer.data.dealer, banners: dealer.data.banners });
        if (providers.data) saveShop(route.code, { providers: providers.data.providers, currency: providers.data.currency });
      }),
    [route.code, dealer.data, providers.data],
  );

  const d = dealer.data?.dealer;
  useEffect(() => {
    if (d?.brand_color) document.documentElement.style.setProperty('--brand', d.brand_color);
    // The title follows the language switch at once (the order page writes its own).
    if (d && !route.order) document.title = `${d.name} - ${t('shop.internet_services')}`;
  }, [d, route.order, lang]);

  // Closed since this phone last saw it open (or while the page was open): said at once, never the old copy.
  if (closed) return <Closed lang={lang} />;
  if (!d) {
    if (dealer.error instanceof ApiError && dealer.error.status === 404) return <NotFound lang={lang} />;
    if (dealer.error) return <Failure message={(dealer.error as Error).message} onRetry={() => void dealer.refetch()} />;
    return (
      <p className="loading" role="status">
        {t('common.loading')}
      </p>
    );
  }
  const list = providers.data?.providers ?? [];
  const currency = providers.data?.currency ?? d.currency;
  const provider = route.providerId ? list.find((p) => p.id === route.providerId) : undefined;
  const category = provider && route.categoryId ? provider.categories.find((c) => c.id === route.categoryId) : undefined;
  const home = pathOf({ code: route.code, providerId: null, categoryId: null });

  return (
    <>
      <header className="top">
        <a href={home} onClick={(e) => onLinkClick(e, home)} className="brand">
          {d.logo && <img src={d.logo} alt="" width={40} height={40} />}
          <bdi>{d.company_name || d.name}</bdi>
        </a>
        <label className="lang">
          <span className="visually-hidden">{t('common.language')}</span>
          <select value={currentLanguage()} onChange={(e) => onLanguage(e.target.value as (typeof LANGUAGES)[number])}>
            <option value="en">English</option>
            <option value="ae">العربية</option>
            <option value="so">Soomaali</option>
          </select>
        </label>
      </header>
      {!online && (
        <p className="offline" role="status">
          {t('shop.offline')}
        </p>
      )}
      <main>
        {route.order && (
          <Suspense
            fallback={
              <p className="loading" role="status">
                {t('common.loading')}
              </p>
            }
          >
            <OrderPage
              code={route.code}
              reference={route.order}
              shop={d.company_name || d.name}
              providers={list}
              online={online}
              onBuy={(provider, bundle) => setBuying({ provider, bundle })}
            />
          </Suspense>
        )}
        {!route.order && route.providerId === null && (
          <>
            <Banners banners={dealer.data?.banners ?? []} />
            {d.description && (
              <p className="muted intro" dir="auto">
                {d.description}
              </p>
            )}
            <section aria-labelledby="ops-title" id="bundles">
              <h1 id="ops-title">{t('shop.choose_operator')}</h1>
              {providers.error && !list.length ? <Failure message={(providers.error as Error).message} onRetry={() => void providers.refetch()} /> : null}
              {!providers.error && !list.length && <p className="muted">{providers.loading ? t('common.loading') : t('shop.nothing_yet')}</p>}
              <ul className="grid">
                {list.map((p) => {
                  const to = pathOf({ code: route.code, providerId: p.id, categoryId: null });
                  return (
                    <li key={p.id}>
                      <a className="tile" href={to} onClick={(e) => onLinkClick(e, to)}>
                        {p.logo ? (
                          <img src={p.logo} alt="" width={56} height={56} loading="lazy" />
                        ) : (
                          <span className="tile-mark" aria-hidden="true">
                            {p.name.slice(0, 1)}
                          </span>
                        )}
                        <bdi>{p.name}</bdi>
                      </a>
                    </li>
                  );
                })}
              </ul>
            </section>
            {mine.length > 0 && <MyRecharges code={route.code} recharges={mine} />}
            <PaymentMethods methods={payments.data ?? []} />
            <Contacts contacts={contacts.data ?? d.contacts.map((c, i) => ({ id: i, ...c }))} website={d.website} />
          </>
        )}
        {route.providerId !== null && !provider && <p className="muted">{providers.loading ? t('common.loading') : t('shop.not_offered')}</p>}
        {provider && !category && (
          <section aria-labelledby="cat-title" id="categories">
            <Crumbs route={route} provider={provider} />
            <h1 id="cat-title">{rich('shop.categories_of', { operator: provider.name }, ['operator'])}</h1>
            <ul className="list">
              {provider.categories.map((c) => {
                const to = pathOf({ code: route.code, providerId: provider.id, categoryId: c.id });
                return (
                  <li key={c.id}>
                    <a className="row" href={to} onClick={(e) => onLinkClick(e, to)}>
                      <span>
                        <strong>
                          <bdi>{c.name}</bdi>
                        </strong>
                        {c.description && <bdi className="muted block">{c.description}</bdi>}
                      </span>
                      <span className="muted">{t('shop.bundle_count', { count: c.bundles.length })}</span>
                    </a>
                  </li>
                );
              })}
            </ul>
          </section>
        )}
        {provider && category && (
          <section aria-labelledby="bundles-title">
            <Crumbs route={route} provider={provider} category={category.name} />
            <h1 id="bundles-title">
              <Name>{provider.name}</Name>
              {' · '}
              <Name>{category.name}</Name>
            </h1>
            <ul className="list">
              {category.bundles.map((b) => (
                <li key={b.id} className="row">
                  <span>
                    <strong>
                      <Name>{b.name}</Name>
                    </strong>
                    <span className="muted block">
                      {b.data_volume_mb === null ? volumeLabel(null) : <Ltr>{volumeLabel(b.data_volume_mb)}</Ltr>}
                      {` · ${t('bundle.days', { count: b.validity_days })}`}
                    </span>
                  </span>
                  <span className="buy">
                    <strong>
                      <Ltr>{money(b.price, currency)}</Ltr>
                    </strong>
                    <button
                      type="button"
                      className="primary"
                      onClick={() => setBuying({ provider, bundle: b })}
                      aria-label={t('shop.buy_named', { bundle: b.name })}
                    >
                      {t('shop.buy')}
                    </button>
                  </span>
                </li>
              ))}
            </ul>
          </section>
        )}
      </main>
      {buying && (
        <PurchaseDialog
          code={route.code}
          provider={buying.provider}
          providers={list}
          bundle={buying.bundle}
          currency={currency}
          methods={payments.data ?? []}
          online={online}
          onClose={() => {
            setBuying(null);
            refreshMine();
          }}
          onBought={refreshMine}
          onStale={(what) => void (what === 'bundle' ? providers.refetch() : what === 'methods' ? payments.refetch() : dealer.refetch())}
        />
      )}
    </>
  );
}

function Crumbs({ route, provider, category }: { route: Route; provider: Provider; category?: string }) {
  const home = pathOf({ code: route.code, providerId: null, categoryId: null });
  const op = pathOf({ code: route.code, providerId: provider.id, categoryId: null });
  return (
    <nav aria-label={t('shop.breadcrumb')} className="crumbs">
      <a href={home} onClick={(e) => onLinkClick(e, home)}>
        {t('shop.home')}
      </a>
      {' / '}
      {category ? (
        <a href={op} onClick={(e) => onLinkClick(e, op)}>
          <bdi>{provider.name}</bdi>
        </a>
      ) : (
        <bdi aria-current="page">{provider.name}</bdi>
      )}
      {category && (
        <>
          {' / '}
          <bdi aria-current="page">{category}</bdi>
        </>
      )}
    </nav>
  );
}

/** The purchases made from this browser, each with its order page. */
function MyRecharges({ code, recharges }: { code: string; recharges: Recharge[] }) {
  return (
    <section aria-labelledby="mine-title" className="card">
      <h2 id="mine-title">{t('shop.my_recharges')}</h2>
      <ul className="plain">
        {recharges.map((r) => {
          const to = orderPath(code, r.reference);
          return (
            <li key={r.id}>
              <a href={to} onClick={(e) => onLinkClick(e, to)}>
                <strong>
                  <bdi>{r.bundle_name}</bdi>
                </strong>
              </a>
              <span className="muted">
                {' · '}
                <Ltr>{r.phone}</Ltr>
                {' · '}
                <Ltr>{money(r.amount, r.currency)}</Ltr>
                {' · '}
              </span>
              <StatusChip recharge={r} />
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function NotFound({ lang }: { lang: string }) {
  useEffect(() => {
    document.title = t('not_found.title');
  }, [lang]);
  return (
    <main className="center">
      <h1>{t('not_found.title')}</h1>
      <p>{t('not_found.text')}</p>
    </main>
  );
}

/** A shop that answered closed: its old copy is not shown (nothing can be bought there). */
function Closed({ lang }: { lang: string }) {
  useEffect(() => {
    document.title = t('closed.title');
  }, [lang]);
  return (
    <main className="center">
      <h1>{t('closed.title')}</h1>
      <p>{t('closed.text')}</p>
    </main>
  );
}

function Failure({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <div className="alert" role="alert">
      <p>{message}</p>
      <button type="button" onClick={onRetry}>
        {t('common.retry')}
      </button>
    </div>
  );
}
