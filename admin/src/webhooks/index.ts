import { screen, type ConsoleArea } from '../console/area';

/** The webhook that tells a dealer's system of each sale; `/*`: a delivery opens over the log (/webhooks/{id}). */
export const webhooksArea: ConsoleArea = {
  pages: [{ path: '/webhooks/*', permissions: ['view webhooks'], screen: screen(() => import('./WebhookPage')) }],
  menu: [{ key: 'webhooks', label: 'menu.webhooks', path: '/webhooks', section: 'management', group: 'integrations', order: 20 }],
};
