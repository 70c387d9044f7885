import { screen, type ConsoleArea } from '../console/area';

/** Banners, the registry's example resource: its list at /banners, records opening over it. */
export const bannersArea: ConsoleArea = {
  registryLists: { banners: screen(() => import('./BannerList')) },
  menu: [{ key: 'banners', label: 'menu.banners', path: '/banners', section: 'management', order: 40, icon: 'banners' }],
};
