import { lazy, type ComponentType } from 'react';
import { TRASH_TABS } from './resources/registry';

/**
 * Signed-in routes of docs/product.md section 2 with the permissions they need (all of them).
 * Screens load lazily. A later screen replaces its `soon(...)` line with its own folder's import.
 */
export interface AppRoute {
  path: string;
  permissions?: readonly string[];
  /** Any one of these (a resource's view permissions). */
  anyOf?: readonly string[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  screen: ComponentType<any>;
  props?: Record<string, unknown>;
}

const ComingSoon = lazy(() => import('./common/ComingSoon'));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const screen = (load: () => Promise<{ default: ComponentType<any> }>) => lazy(load);
const soon = (path: string, title: string, permissions?: readonly string[]): AppRoute => ({ path, permissions, screen: ComingSoon, props: { title } });

const UserList = screen(() => import('./users/UserList'));
const TrashPage = screen(() => import('./trash/TrashPage'));

/** List screens of registry resources shown at their own path (/banners): react-admin Resources. */
export const RESOURCE_SCREENS: Record<string, ComponentType | undefined> = {
  banners: screen(() => import('./banners/BannerList')),
};

export const ROUTES: AppRoute[] = [
  soon('/dashboard', 'menu.dashboard', ['view dashboard']),
  // `/*`: every record has a URL (/admin/create, /dealers/12) that opens its form over the list.
  { path: '/admin/*', permissions: ['view admins'], screen: UserList, props: { userType: 'admin' } },
  { path: '/dealers/*', permissions: ['view dealers'], screen: UserList, props: { userType: 'dealer' } },
  soon('/internet-providers', 'menu.internet_providers', ['view internet providers']),
  soon('/internet-providers/:id/categories', 'menu.internet_categories', ['view internet categories']),
  soon('/internet-providers/:id/categories/:categoryId/bundles', 'menu.bundles', ['view bundles']),
  soon('/dealer-providers', 'menu.dealer_providers', ['view dealer providers']),
  soon('/dealer-providers/:id/categories', 'menu.dealer_categories', ['view dealer categories']),
  soon('/dealer-providers/:id/categories/:categoryId/bundles', 'menu.dealer_bundles', ['view dealer bundles']),
  soon('/wallets', 'menu.wallets'),
  soon('/wallet-transactions', 'menu.wallet_transactions', ['view wallet transactions']),
  soon('/my-wallet', 'menu.my_wallet', ['view own wallet']),
  soon('/recharges', 'menu.recharges', ['view recharges']),
  soon('/reports', 'menu.reports', ['view reports']),
  soon('/reports/dealer-profit', 'menu.dealer_profit_report', ['view dealer profit report']),
  soon('/settings', 'menu.settings', ['manage settings']),
  soon('/settings/mail', 'menu.settings_mail', ['view mail settings']),
  { path: '/settings/roles/*', permissions: ['view roles'], screen: screen(() => import('./roles/RoleList')) },
  soon('/settings/areas', 'menu.settings_areas', ['view areas']),
  soon('/settings/payment-methods', 'menu.settings_payment_methods', ['view payment methods']),
  soon('/settings/company', 'menu.settings_company', ['view company settings']),
  soon('/settings/contacts', 'menu.settings_contacts', ['view contact settings']),
  soon('/logs', 'menu.logs', ['view logs']),
  { path: '/trash', permissions: ['view trash items'], screen: TrashPage, props: { resource: TRASH_TABS[0].resource } },
  ...TRASH_TABS.map((tab) => ({ path: tab.path, permissions: ['view trash items'], screen: TrashPage, props: { resource: tab.resource } })),
  { path: '/auth/profile', screen: screen(() => import('./profile/ProfilePage')) },
  { path: '/search', screen: screen(() => import('./search/SearchPage')) },
];
