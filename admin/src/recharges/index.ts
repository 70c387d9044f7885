import { screen, type ConsoleArea } from '../console/area';

/** Sales: the list, a sale's page over it, and the review queue. */
export const rechargesArea: ConsoleArea = {
  resources: [
    {
      name: 'recharges',
      recordRepresentation: 'reference',
      permissions: ['view recharges'],
      list: screen(() => import('./RechargeList')),
      hasRecordPage: true,
      // More specific than /recharges/{id}: the review queue and its drawer (/recharges/review/{id}).
      children: [{ path: 'review/*', permissions: ['view recharges', 'review recharges'], screen: screen(() => import('./ReviewList')) }],
    },
  ],
  menu: [
    { key: 'recharges', label: 'menu.recharges_all', path: '/recharges', section: 'management', group: 'recharges-group', order: 10 },
    // Polls GET /recharges/review-count (layout/useReviewCount.ts) for its badge.
    {
      key: 'recharges-review',
      label: 'menu.recharges_review',
      path: '/recharges/review',
      section: 'management',
      group: 'recharges-group',
      order: 20,
      badge: 'review',
    },
  ],
};
