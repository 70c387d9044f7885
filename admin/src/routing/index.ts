import { screen, type ConsoleArea } from '../console/area';

/** Delivery routes of an operator, the aggregators' floats and their synced catalogues. */
export const routingArea: ConsoleArea = {
  resources: [
    // GET /aggregators/{aggregator}/products (routingCalls.ts): /aggregator-catalogue/{aggregator} is one tab per aggregator.
    {
      name: 'aggregator-catalogue',
      recordRepresentation: 'name',
      permissions: ['view delivery routes'],
      list: screen(() => import('./AggregatorCataloguePage')),
      hasRecordPage: false,
    },
  ],
  pages: [
    // Read with 'view delivery routes', edited with 'manage delivery routes' (checked on the page).
    { path: '/internet-providers/:id/routes', permissions: ['view delivery routes'], screen: screen(() => import('./DeliveryRoutesPage')) },
    // Each aggregator's float: its threshold and "Check now" with 'manage delivery routes' (checked on the page).
    { path: '/aggregators', permissions: ['view delivery routes'], userTypes: ['admin'], screen: screen(() => import('./AggregatorsPage')) },
  ],
  menu: [
    { key: 'aggregator-catalogue', label: 'menu.aggregator_catalogue', path: '/aggregator-catalogue', section: 'management', group: 'catalogue', order: 20 },
    { key: 'aggregators', label: 'menu.aggregators', path: '/aggregators', section: 'management', group: 'catalogue', order: 30 },
  ],
};
