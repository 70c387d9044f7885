import { screen, type ConsoleArea } from '../console/area';

/** The activity log: every change, as a sentence (/logs/{id} opens an entry). */
export const logsArea: ConsoleArea = {
  resources: [{ name: 'logs', recordRepresentation: 'id', permissions: ['view logs'], list: screen(() => import('./LogList')), hasRecordPage: true }],
  menu: [{ key: 'logs', label: 'menu.logs', path: '/logs', section: 'system_monitoring', order: 10, icon: 'history' }],
};
