import { screen, type ConsoleArea } from '../console/area';

export const dashboardArea: ConsoleArea = {
  pages: [{ path: '/dashboard', permissions: ['view dashboard'], screen: screen(() => import('./DashboardPage')) }],
  menu: [{ key: 'dashboard', label: 'menu.dashboard', path: '/dashboard', section: 'main', order: 10, icon: 'dashboard' }],
};
