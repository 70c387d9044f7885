import { screen, type ConsoleArea } from '../console/area';

const UserList = screen(() => import('./UserList'));

/** Admins and dealers: the registry's users at two paths, by type; `/*`: every record has a URL (/admin/create, /dealers/12) that opens its form over the list. */
export const usersArea: ConsoleArea = {
  pages: [
    { path: '/admin/*', permissions: ['view admins'], screen: UserList, props: { userType: 'admin' } },
    { path: '/dealers/*', permissions: ['view dealers'], screen: UserList, props: { userType: 'dealer' } },
  ],
  menu: [
    { key: 'admins', label: 'menu.admins', path: '/admin', section: 'management', group: 'users', order: 10 },
    { key: 'dealers', label: 'menu.dealers', path: '/dealers', section: 'management', group: 'users', order: 20 },
  ],
};
