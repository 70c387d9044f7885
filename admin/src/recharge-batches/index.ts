import { screen, type ConsoleArea } from '../console/area';

/** Bulk sales: read with 'view recharges' (a dealer its own); a new one is a dealer's, paid from its wallet. */
export const rechargeBatchesArea: ConsoleArea = {
  pages: [
    { path: '/recharge-batches', permissions: ['view recharges'], screen: screen(() => import('./RechargeBatchListPage')) },
    {
      path: '/recharge-batches/new',
      permissions: ['view recharges', 'view own wallet'],
      userTypes: ['dealer'],
      screen: screen(() => import('./NewRechargeBatchPage')),
    },
    { path: '/recharge-batches/:id', permissions: ['view recharges'], screen: screen(() => import('./RechargeBatchPage')) },
  ],
  menu: [{ key: 'recharge-batches', label: 'menu.recharge_batches', path: '/recharge-batches', section: 'management', group: 'recharges-group', order: 40 }],
};
