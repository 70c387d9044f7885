import { screen, type ConsoleArea } from '../console/area';

/** The header search's results (GET /search answers only the groups the caller may read). */
export const searchArea: ConsoleArea = {
  pages: [{ path: '/search', screen: screen(() => import('./SearchPage')) }],
};
