import { screen, type ConsoleArea } from '../console/area';

/** A dealer's keys for the reseller API; `/*`: a key's page opens over the list (/api-keys/{id}). */
export const apiKeysArea: ConsoleArea = {
  pages: [{ path: '/api-keys/*', permissions: ['view api keys'], screen: screen(() => import('./ApiKeyList')) }],
  menu: [{ key: 'api-keys', label: 'menu.api_keys', path: '/api-keys', section: 'management', group: 'integrations', order: 10 }],
};
