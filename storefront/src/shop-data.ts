import { useState } from 'react';
import { ApiError, call, type Banner, type Contact, type PaymentMethod, type Provider, type Recharge, type StoreDealer } from './api';
import { loadShop, markClosed, saveShop } from './offline-cache';
import { prime, useQuery } from './query';
import { bootIsFresh, readBoot } from './boot';
import { currentLanguage, t } from './i18n';

/** The API's answer for a shop that is closed (inactive) or gone: 404. */
export const isClosedAnswer = (err: unknown) => err instanceof ApiError && err.status === 404;

/**
 * A shop's data: dealer and banners, operators with their categories and bundles, contacts and
 * payment methods. Each answer is saved for offline use; the saved copy shows at once. `closed`:
 * the shop answered closed while a copy of it was shown or saved (a returning visitor): say so at
 * once, also offline, instead of the copy.
 */
export function useShop(code: string) {
  // The dealer's texts come in the customer's language: one query per shop and language, so a
  // language switch asks again (the saved offline copy shows meanwhile).
  const lng = currentLanguage();
  const boot = readBoot();
  const bootFresh = !!boot && bootIsFresh(boot);
  if (boot && boot.code === code && boot.lng === lng) {
    prime(`dealer:${code}:${lng}`, boot.dealer, bootFresh ? Date.now() : 0);
    prime(`providers:${code}:${lng}`, boot.providers, bootFresh ? Date.now() : 0);
  }
  // The server just wrote this shop's page (read once, when the page opens): it is open again.
  useState(() => {
    if (bootFresh && boot?.code.toUpperCase() === code.toUpperCase() && loadShop(code)?.closed) saveShop(code, { closed: false });
  });
  const saved = code ? loadShop(code) : null;
  const opts = { dealerCode: code, t };
  const dealer = useQuery(
    code ? `dealer:${code}:${lng}` : null,
    async () => {
      try {
        const d = await call<{ dealer: StoreDealer; banners: Banner[] }>('/dealer', opts);
        saveShop(code, { dealer: d.dealer, banners: d.banners, closed: false });
        return d;
      } catch (err) {
        if (isClosedAnswer(err)) markClosed(code);
        throw err;
      }
    },
    saved?.dealer ? { dealer: saved.dealer, banners: saved.banners ?? [] } : undefined,
  );
  const providers = useQuery(
    code ? `providers:${code}:${lng}` : null,
    async () => {
      const d = await call<{ currency: string; providers: Provider[] }>('/dealer/providers', opts);
      saveShop(code, { providers: d.providers, currency: d.currency });
      return d;
    },
    saved?.providers ? { providers: saved.providers, currency: saved.currency ?? 'USD' } : undefined,
  );
  const contacts = useQuery(
    code ? `contacts:${code}:${lng}` : null,
    async () => {
      const d = (await call<Contact[]>('/contacts', opts)) ?? [];
      saveShop(code, { contacts: d });
      return d;
    },
    saved?.contacts,
  );
  const payments = useQuery(
    code ? `payment-methods:${code}:${lng}` : null,
    async () => {
      const d = (await call<PaymentMethod[]>('/payment-methods', opts)) ?? [];
      saveShop(code, { paymentMethods: d });
      return d;
    },
    saved?.paymentMethods,
  );
  // Closed: the saved copy says so, or the API answered closed over the data on screen.
  const closed = !!saved?.closed || ((isClosedAnswer(dealer.error) || isClosedAnswer(providers.error)) && !!dealer.data);
  return { dealer, providers, contacts, payments, closed };
}

export const fetchRecharge = (code: string, id: number | string) => call<Recharge>(`/recharge/${id}`, { dealerCode: code, t });
export const fetchMyRecharges = (code: string) => call<Recharge[]>('/recharges', { dealerCode: code, t });

/** "1024" MB -> "1 GB"; null -> unlimited. */
export function volumeLabel(mb: number | null): string {
  if (mb === null) return t('bundle.unlimited');
  if (mb >= 1024) return `${Number.isInteger(mb / 1024) ? mb / 1024 : (mb / 1024).toFixed(1)} GB`;
  return `${mb} MB`;
}

export function money(amount: string, currency: string): string {
  return currency === 'USD' ? `$${amount}` : `${amount} ${currency}`;
}
