import { screen, type ConsoleArea } from '../console/area';

/** The company's catalogue: operators (the registry's internet-providers), their categories and bundles under them. */
export const catalogueArea: ConsoleArea = {
  registryLists: { 'internet-providers': screen(() => import('./ProviderList')) },
  pages: [
    { path: '/internet-providers/:id/categories/*', permissions: ['view internet categories'], screen: screen(() => import('./CategoryList')) },
    { path: '/internet-providers/:id/categories/:categoryId/bundles/*', permissions: ['view bundles'], screen: screen(() => import('./BundleList')) },
  ],
  menu: [{ key: 'internet-providers', label: 'menu.operators', path: '/internet-providers', section: 'management', group: 'catalogue', order: 10 }],
};
