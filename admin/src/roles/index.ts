import { screen, type ConsoleArea } from '../console/area';

/** Roles and their permissions, under the settings (/settings/roles/{id} opens a role over the list). */
export const rolesArea: ConsoleArea = {
  pages: [{ path: '/settings/roles/*', permissions: ['view roles'], screen: screen(() => import('./RoleList')) }],
  menu: [{ key: 'roles', label: 'menu.roles', path: '/settings/roles', section: 'configuration', group: 'settings', order: 50 }],
};
