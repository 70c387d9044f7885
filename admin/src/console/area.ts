import { lazy, type ComponentType } from 'react';
import type { BadgeKind, SectionKey } from '../layout/menu';

/** The icons a menu entry may name (layout/menuItems.ts draws them). */
export type MenuIconName = 'dashboard' | 'shop' | 'storefront' | 'banners' | 'history';

/**
 * What a console area declares, from its folder's index.ts (dashboard/index.ts, wallets/index.ts
 * ...): its react-admin Resources, its pages (react-admin CustomRoutes), the list screens of the
 * registry resources it shows (contracts/src/resources.ts), and where each sits in the menu.
 * console/areas.ts gathers them; App.tsx renders the routes, the menu and the access check from
 * that one table (docs/decisions.md, "One table for the console's screens").
 */

/** Who opens a page: all of `permissions`, any one of `anyOf` (when given), and only `userTypes` (when given). */
export interface Access {
  permissions?: readonly string[];
  anyOf?: readonly string[];
  userTypes?: readonly string[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Screen = ComponentType<any>;

/** A screen loaded when first shown: one chunk per screen. */
export const screen = (load: () => Promise<{ default: Screen }>): Screen => lazy(load);

/** A page at its own path (`/*` when its records open over it: /dealers/12). */
export interface ConsolePage extends Access {
  path: string;
  screen: Screen;
  props?: Record<string, unknown>;
}

/**
 * A react-admin Resource outside the registry (no generic lifecycle): its list screen at /{name}
 * reads a record's id from the rest of the path (/recharges/41 opens that sale); react-admin's show
 * URL (/{name}/{id}/show) forwards to it. `children` are more specific routes under it
 * (/recharges/review/*), their paths relative to /{name}.
 */
export interface ConsoleResource extends Access {
  name: string;
  recordRepresentation: string | ((record: never) => string);
  list: Screen;
  /** Records that open at a console URL (GET /{name}/{id} exists). */
  hasRecordPage: boolean;
  children?: ConsolePage[];
}

/** A menu entry: the page at `path` (its access decides who sees it), in a section and, when given, a group of layout/menuItems.ts, in `order`. */
export interface MenuPlacement {
  key: string;
  label: string;
  path: string;
  section: SectionKey;
  group?: string;
  order: number;
  /** Its icon, by name (layout/menuItems.ts MENU_ICONS): the icons load with the menu, not before sign-in. */
  icon?: MenuIconName;
  /** Live counts next to the label, one pill each (hidden at 0). */
  badge?: BadgeKind | readonly BadgeKind[];
}

export interface ConsoleArea {
  resources?: ConsoleResource[];
  pages?: ConsolePage[];
  /** The list screens of registry resources (react-admin Resources rendered from the registry), by resource name. */
  registryLists?: Record<string, Screen>;
  menu?: MenuPlacement[];
}
