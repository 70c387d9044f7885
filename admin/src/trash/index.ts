import { screen, type ConsoleArea } from '../console/area';
import { TRASH_TABS } from '../resources/registry';

const TrashPage = screen(() => import('./TrashPage'));

/** The trash: one tab per resource that has one (the registry decides). */
export const trashArea: ConsoleArea = {
  pages: [
    // /trash opens the first tab the user may read; each tab needs `view trash items` and a view permission of its resource.
    { path: '/trash', permissions: ['view trash items'], anyOf: [...new Set(TRASH_TABS.flatMap((tab) => tab.readWith))], screen: TrashPage },
    ...TRASH_TABS.map((tab) => ({
      path: tab.path,
      permissions: ['view trash items'],
      anyOf: tab.readWith,
      screen: TrashPage,
      props: { resource: tab.resource },
    })),
  ],
  menu: TRASH_TABS.map((tab, i) => ({
    key: `trash-${tab.resource}`,
    label: tab.label,
    path: tab.path,
    section: 'system_monitoring' as const,
    group: 'trash',
    order: (i + 1) * 10,
  })),
};
