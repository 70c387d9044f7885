import type { Access, ConsoleArea, ConsolePage, ConsoleResource, MenuPlacement, Screen } from './area';
import { dashboardArea } from '../dashboard';
import { catalogueArea } from '../catalogue';
import { routingArea } from '../routing';
import { myShopArea } from '../my-shop';
import { dealerCatalogueArea } from '../dealer-catalogue';
import { bannersArea } from '../banners';
import { walletsArea } from '../wallets';
import { rechargesArea } from '../recharges';
import { missedSalesArea } from '../missed-sales';
import { rechargeBatchesArea } from '../recharge-batches';
import { apiKeysArea } from '../api-keys';
import { webhooksArea } from '../webhooks';
import { usersArea } from '../users';
import { reportsArea } from '../reports';
import { dailyCloseArea } from '../daily-close';
import { settingsArea } from '../settings';
import { rolesArea } from '../roles';
import { logsArea } from '../logs';
import { trashArea } from '../trash';
import { profileArea } from '../profile';
import { searchArea } from '../search';
import { RESOURCE_LIST } from '@app/contracts/resources';

/**
 * Every console area, each declared in its folder's index.ts: the one table the routes
 * (App.tsx), the menu (layout/menuItems.ts) and the access check (providers/authProvider.ts
 * canAccess) are read from. A new screen is a line in its area's index.ts (and a new area a line
 * here).
 */
export const AREAS: readonly ConsoleArea[] = [
  dashboardArea,
  catalogueArea,
  routingArea,
  myShopArea,
  dealerCatalogueArea,
  bannersArea,
  walletsArea,
  rechargesArea,
  missedSalesArea,
  rechargeBatchesArea,
  apiKeysArea,
  webhooksArea,
  usersArea,
  reportsArea,
  dailyCloseArea,
  settingsArea,
  rolesArea,
  logsArea,
  trashArea,
  profileArea,
  searchArea,
];

/** The pages (react-admin CustomRoutes) of every area. */
export const PAGES: readonly ConsolePage[] = AREAS.flatMap((a) => a.pages ?? []);
/** The Resources outside the registry. */
export const CONSOLE_RESOURCES: readonly ConsoleResource[] = AREAS.flatMap((a) => a.resources ?? []);
/** The list screens of registry resources shown at their own path (/banners): react-admin Resources with a list. */
export const REGISTRY_LISTS: Readonly<Record<string, Screen>> = Object.assign({}, ...AREAS.map((a) => a.registryLists ?? {}));
/** Every menu entry, in no order (layout/menuItems.ts places them). */
export const MENU_PLACEMENTS: readonly MenuPlacement[] = AREAS.flatMap((a) => a.menu ?? []);

/** The path a page's guard asks about: its route without a trailing `/*` (App.tsx and the table agree through this). */
export const guardPath = (path: string) => path.replace(/\/\*$/, '');
const pattern = guardPath;
/** Every path the console opens and who opens it: pages, Resources (with their children) and registry lists. */
const ACCESS: readonly { path: string; access: Access }[] = [
  ...PAGES.map((p) => ({ path: pattern(p.path), access: p })),
  ...CONSOLE_RESOURCES.flatMap((r) => [
    { path: `/${r.name}`, access: r as Access },
    ...(r.children ?? []).map((c) => ({ path: pattern(`/${r.name}/${c.path}`), access: c as Access })),
  ]),
  ...RESOURCE_LIST.filter((def) => REGISTRY_LISTS[def.name]).map((def) => ({ path: `/${def.name}`, access: { anyOf: def.permissions.view } })),
];

/** Who may open the page at `path` (a page's own path or pattern, e.g. /reports/margins or /dealers); undefined for a path the console does not have. */
export function accessOf(path: string): Access | undefined {
  return ACCESS.find((a) => a.path === path)?.access;
}
