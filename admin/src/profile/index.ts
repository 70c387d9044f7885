import { screen, type ConsoleArea } from '../console/area';

/** One's own profile: name, password, picture, two-factor (any signed-in user). */
export const profileArea: ConsoleArea = {
  pages: [{ path: '/auth/profile', screen: screen(() => import('./ProfilePage')) }],
};
