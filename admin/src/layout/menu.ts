import type { ComponentType } from 'react';
import { canOpen, type Perms } from '../permissions/permissions';
import type { Access } from '../console/area';

/**
 * The sidebar and horizontal menu of docs/product.md section 2: sections with headings (the first has
 * none), items shown to whoever opens their page, groups with children. Labels are keys of the
 * admin namespace. The items come from the areas' index.ts files (console/areas.ts); menuItems.ts
 * places them in their sections and groups.
 */
export type SectionKey = 'main' | 'management' | 'reports' | 'configuration' | 'system_monitoring';

/** A live count next to a menu label: sales waiting for review, money requests waiting, wallets under their low-balance alert. */
export type BadgeKind = 'review' | 'money_requests' | 'below_alert';

export interface MenuItem {
  key: string;
  label: string;
  path?: string;
  /** Who sees it: the access of the page it opens (console/areas.ts); a group shows while a child does. */
  access?: Access;
  icon?: ComponentType;
  children?: MenuItem[];
  /** Live counts shown next to the label, one pill each (hidden at 0): 'review' = sales waiting for review. */
  badge?: BadgeKind | readonly BadgeKind[];
}

export interface MenuSection {
  key: SectionKey;
  /** Heading key; the first section has no heading. */
  title?: string;
  items: MenuItem[];
}

/**
 * Keeps the items the user may see (its permissions, and its type where an item serves one kind
 * of user only); groups without a visible child and empty sections go.
 */
export function filterMenu(sections: readonly MenuSection[], perms: Perms, userType?: string | null): MenuSection[] {
  const filterItems = (items: readonly MenuItem[]): MenuItem[] =>
    items.flatMap((item) => {
      if (item.path && !canOpen(perms, userType, item.access)) return [];
      if (item.children) {
        const children = filterItems(item.children);
        return children.length ? [{ ...item, children }] : [];
      }
      return [item];
    });
  return sections.flatMap((s) => {
    const items = filterItems(s.items);
    return items.length ? [{ ...s, items }] : [];
  });
}

export const DEFAULT_HOME = '/dashboard';

/** The home page is the first visible menu path, else /dashboard (docs/product.md section 2). */
export function homePath(sections: readonly MenuSection[], perms: Perms, userType?: string | null): string {
  const first = (items: readonly MenuItem[]): string | undefined => {
    for (const item of items) {
      const p = item.path ?? (item.children ? first(item.children) : undefined);
      if (p) return p;
    }
    return undefined;
  };
  for (const s of filterMenu(sections, perms, userType)) {
    const p = first(s.items);
    if (p) return p;
  }
  return DEFAULT_HOME;
}

/** The group (by key) holding the current path, so that it opens on its own. */
export function activeGroupKeys(sections: readonly MenuSection[], pathname: string): string[] {
  const keys: string[] = [];
  const visit = (items: readonly MenuItem[], parents: string[]) => {
    for (const item of items) {
      if (item.path && isActivePath(item.path, pathname)) keys.push(...parents);
      if (item.children) visit(item.children, [...parents, item.key]);
    }
  };
  sections.forEach((s) => visit(s.items, []));
  return [...new Set(keys)];
}

export const isActivePath = (itemPath: string, pathname: string): boolean => pathname === itemPath || pathname.startsWith(`${itemPath}/`);
