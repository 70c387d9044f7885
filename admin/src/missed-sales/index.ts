import { screen, type ConsoleArea } from '../console/area';

/** Purchases refused for want of wallet money: part of the sales record. */
export const missedSalesArea: ConsoleArea = {
  pages: [{ path: '/missed-sales', permissions: ['view recharges'], screen: screen(() => import('./MissedSaleList')) }],
  menu: [{ key: 'missed-sales', label: 'menu.missed_sales', path: '/missed-sales', section: 'management', group: 'recharges-group', order: 30 }],
};
