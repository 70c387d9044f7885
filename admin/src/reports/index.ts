import { screen, type ConsoleArea } from '../console/area';

/** The sales and dealer-profit reports, and the company's margins. */
export const reportsArea: ConsoleArea = {
  pages: [
    { path: '/reports', permissions: ['view reports'], screen: screen(() => import('./ReportsPage')) },
    { path: '/reports/dealer-profit', permissions: ['view dealer profit report'], screen: screen(() => import('./DealerProfitPage')) },
    // Price-list profit beside the real margin: the company's figures, never a dealer's (the API's dealer scope has no vendor costs).
    { path: '/reports/margins', permissions: ['view reports', 'view bundles prices'], userTypes: ['admin'], screen: screen(() => import('./MarginsPage')) },
  ],
  menu: [
    { key: 'sales-report', label: 'menu.sales_report', path: '/reports', section: 'reports', group: 'reports', order: 10 },
    { key: 'dealer-profit', label: 'menu.dealer_profit_report', path: '/reports/dealer-profit', section: 'reports', group: 'reports', order: 20 },
    { key: 'margins', label: 'menu.margins_report', path: '/reports/margins', section: 'reports', group: 'reports', order: 30 },
  ],
};
