import { screen, type ConsoleArea } from '../console/area';

/** The days and one day's close: read with 'view daily close'; refreshed, handled and closed with 'manage daily close' (checked on the page). */
export const dailyCloseArea: ConsoleArea = {
  pages: [
    { path: '/reports/daily-close', permissions: ['view daily close'], userTypes: ['admin'], screen: screen(() => import('./DailyCloseListPage')) },
    { path: '/reports/daily-close/:date', permissions: ['view daily close'], userTypes: ['admin'], screen: screen(() => import('./DailyClosePage')) },
  ],
  menu: [{ key: 'daily-close', label: 'menu.daily_close', path: '/reports/daily-close', section: 'reports', group: 'reports', order: 40 }],
};
