import { screen, type ConsoleArea } from '../console/area';

/** A dealer's selection of the company's catalogue: what its shop offers, at its prices. */
export const dealerCatalogueArea: ConsoleArea = {
  pages: [
    { path: '/dealer-providers', permissions: ['view dealer providers'], screen: screen(() => import('./DealerProviderList')) },
    { path: '/dealer-providers/:id/categories', permissions: ['view dealer categories'], screen: screen(() => import('./DealerCategoryList')) },
    { path: '/dealer-providers/:id/categories/:categoryId/bundles', permissions: ['view dealer bundles'], screen: screen(() => import('./DealerBundleList')) },
  ],
  menu: [{ key: 'dealer-providers', label: 'menu.dealer_providers', path: '/dealer-providers', section: 'management', order: 30, icon: 'storefront' }],
};
