import { lazy, type ComponentType } from 'react';
import { TRASH_TABS } from './resources/registry';

/**
 * Signed-in routes of docs/product.md section 2 with the permissions they need (all of them).
 * Screens load lazily, one chunk per screen.
 */
export interface AppRoute {
  path: string;
  permissions?: readonly string[];
  /** Only these kinds of user open it (others get /unauthorized). */
  userTypes?: readonly string[];
  /** Any one of these (a resource's view permissions). */
  anyOf?: readonly string[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  screen: ComponentType<any>;
  props?: Record<string, unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const screen = (load: () => Promise<{ default: ComponentType<any> }>) => lazy(load);

const UserList = screen(() => import('./users/UserList'));
const TrashPage = screen(() => import('./trash/TrashPage'));

/** List screens of registry resources shown at their own path (/banners): react-admin Resources. */
export const RESOURCE_SCREENS: Record<string, ComponentType | undefined> = {
  banners: screen(() => import('./banners/BannerList')),
  'internet-providers': screen(() => import('./catalogue/ProviderList')),
};

/**
 * Console resources outside the registry (no generic lifecycle): react-admin Resources all the
 * same, so useCreatePath, ReferenceField links and the query cache know them. The list screen is
 * at /{name} and reads a record's id from the rest of the path (/recharges/41 opens that sale);
 * react-admin's show URL (/{name}/{id}/show) forwards to it. `children` are more specific routes
 * under the resource (/recharges/review/*).
 */
export interface ConsoleResource {
  name: string;
  recordRepresentation: string | ((record: never) => string);
  permissions: readonly string[];
  list: ComponentType;
  /** Records that open at a console URL (GET /{name}/{id} exists). */
  hasRecordPage: boolean;
  children?: AppRoute[];
}

export const CONSOLE_RESOURCES: ConsoleResource[] = [
  // The API's wallet list needs 'view wallets', so the screen does too (docs/decisions.md, "Money").
  {
    name: 'wallets',
    recordRepresentation: (w: { dealer?: { name: string } }) => w.dealer?.name ?? '',
    permissions: ['view wallets'],
    list: screen(() => import('./wallets/WalletList')),
    hasRecordPage: true,
    // A wallet's statement over a period (GET /wallets/{id}/statement).
    children: [{ path: ':id/statement', permissions: ['view wallets'], screen: screen(() => import('./wallets/WalletStatementPage')) }],
  },
  {
    name: 'wallet-transactions',
    recordRepresentation: 'reference',
    permissions: ['view wallet transactions'],
    list: screen(() => import('./wallets/WalletTransactionList')),
    hasRecordPage: false,
  },
  {
    name: 'recharges',
    recordRepresentation: 'reference',
    permissions: ['view recharges'],
    list: screen(() => import('./recharges/RechargeList')),
    hasRecordPage: true,
    // More specific than /recharges/{id}: the review queue and its drawer (/recharges/review/{id}).
    children: [{ path: 'review/*', permissions: ['view recharges', 'review recharges'], screen: screen(() => import('./recharges/ReviewList')) }],
  },
  { name: 'logs', recordRepresentation: 'id', permissions: ['view logs'], list: screen(() => import('./logs/LogList')), hasRecordPage: true },
  // GET /aggregators/{aggregator}/products (dataProvider): /aggregator-catalogue/{aggregator} is one tab per aggregator.
  {
    name: 'aggregator-catalogue',
    recordRepresentation: 'name',
    permissions: ['view delivery routes'],
    list: screen(() => import('./routing/AggregatorCataloguePage')),
    hasRecordPage: false,
  },
];

export const ROUTES: AppRoute[] = [
  { path: '/dashboard', permissions: ['view dashboard'], screen: screen(() => import('./dashboard/DashboardPage')) },
  // `/*`: every record has a URL (/admin/create, /dealers/12) that opens its form over the list.
  { path: '/admin/*', permissions: ['view admins'], screen: UserList, props: { userType: 'admin' } },
  { path: '/dealers/*', permissions: ['view dealers'], screen: UserList, props: { userType: 'dealer' } },
  // /internet-providers itself is the react-admin Resource (RESOURCE_SCREENS); its children nest under it.
  { path: '/internet-providers/:id/categories/*', permissions: ['view internet categories'], screen: screen(() => import('./catalogue/CategoryList')) },
  { path: '/internet-providers/:id/categories/:categoryId/bundles/*', permissions: ['view bundles'], screen: screen(() => import('./catalogue/BundleList')) },
  // An operator's delivery routes: read with 'view delivery routes', edited with 'manage delivery routes' (checked on the page).
  { path: '/internet-providers/:id/routes', permissions: ['view delivery routes'], screen: screen(() => import('./routing/DeliveryRoutesPage')) },
  // Each aggregator's float: read with 'view delivery routes'; its threshold and "Check now" with 'manage delivery routes' (checked on the page).
  { path: '/aggregators', permissions: ['view delivery routes'], userTypes: ['admin'], screen: screen(() => import('./routing/AggregatorsPage')) },
  { path: '/dealer-providers', permissions: ['view dealer providers'], screen: screen(() => import('./dealer-catalogue/DealerProviderList')) },
  { path: '/dealer-providers/:id/categories', permissions: ['view dealer categories'], screen: screen(() => import('./dealer-catalogue/DealerCategoryList')) },
  {
    path: '/dealer-providers/:id/categories/:categoryId/bundles',
    permissions: ['view dealer bundles'],
    screen: screen(() => import('./dealer-catalogue/DealerBundleList')),
  },
  { path: '/my-wallet', permissions: ['view own wallet'], userTypes: ['dealer'], screen: screen(() => import('./wallets/MyWalletPage')) },
  { path: '/my-shop', userTypes: ['dealer'], screen: screen(() => import('./my-shop/MyShopPage')) },
  // /wallets, /wallet-transactions, /recharges (and /recharges/review), /logs and /aggregator-catalogue are CONSOLE_RESOURCES.
  { path: '/missed-sales', permissions: ['view recharges'], screen: screen(() => import('./missed-sales/MissedSaleList')) },
  // Bulk sales: read with 'view recharges' (a dealer its own); a new one is a dealer's, paid from its wallet.
  { path: '/recharge-batches', permissions: ['view recharges'], screen: screen(() => import('./recharge-batches/RechargeBatchListPage')) },
  {
    path: '/recharge-batches/new',
    permissions: ['view recharges', 'view own wallet'],
    userTypes: ['dealer'],
    screen: screen(() => import('./recharge-batches/NewRechargeBatchPage')),
  },
  { path: '/recharge-batches/:id', permissions: ['view recharges'], screen: screen(() => import('./recharge-batches/RechargeBatchPage')) },
  // `/*`: a key's page opens over the list (/api-keys/{id}).
  { path: '/api-keys/*', permissions: ['view api keys'], screen: screen(() => import('./api-keys/ApiKeyList')) },
  // `/*`: a delivery opens over the log (/webhooks/{id}).
  { path: '/webhooks/*', permissions: ['view webhooks'], screen: screen(() => import('./webhooks/WebhookPage')) },
  { path: '/reports', permissions: ['view reports'], screen: screen(() => import('./reports/ReportsPage')) },
  { path: '/reports/dealer-profit', permissions: ['view dealer profit report'], screen: screen(() => import('./reports/DealerProfitPage')) },
  // Price-list profit beside the real margin: the company's figures, never a dealer's (the API's dealer scope has no vendor costs).
  {
    path: '/reports/margins',
    permissions: ['view reports', 'view bundles prices'],
    userTypes: ['admin'],
    screen: screen(() => import('./reports/MarginsPage')),
  },
  // The days and one day's close: read with 'view daily close'; refreshed, handled and closed with 'manage daily close' (checked on the page).
  { path: '/reports/daily-close', permissions: ['view daily close'], userTypes: ['admin'], screen: screen(() => import('./daily-close/DailyCloseListPage')) },
  { path: '/reports/daily-close/:date', permissions: ['view daily close'], userTypes: ['admin'], screen: screen(() => import('./daily-close/DailyClosePage')) },
  { path: '/settings', permissions: ['manage settings'], screen: screen(() => import('./settings/SettingsHub')) },
  { path: '/settings/mail', permissions: ['view mail settings'], screen: screen(() => import('./settings/MailSettingsPage')) },
  { path: '/settings/roles/*', permissions: ['view roles'], screen: screen(() => import('./roles/RoleList')) },
  { path: '/settings/areas/*', permissions: ['view areas'], screen: screen(() => import('./settings/AreaList')) },
  { path: '/settings/payment-methods/*', permissions: ['view payment methods'], screen: screen(() => import('./settings/PaymentMethodList')) },
  { path: '/settings/company', permissions: ['view company settings'], screen: screen(() => import('./settings/CompanySettingsPage')) },
  { path: '/settings/money', permissions: ['view company settings'], screen: screen(() => import('./settings/MoneySettingsPage')) },
  { path: '/settings/contacts/*', permissions: ['view contact settings'], screen: screen(() => import('./settings/ContactList')) },
  { path: '/trash', permissions: ['view trash items'], screen: TrashPage, props: { resource: TRASH_TABS[0].resource } },
  ...TRASH_TABS.map((tab) => ({ path: tab.path, permissions: ['view trash items'], screen: TrashPage, props: { resource: tab.resource } })),
  { path: '/auth/profile', screen: screen(() => import('./profile/ProfilePage')) },
  { path: '/search', screen: screen(() => import('./search/SearchPage')) },
];
