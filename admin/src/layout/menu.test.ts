import { describe, expect, it } from 'vitest';
import { activeGroupKeys, filterMenu, homePath } from './menu';
import { MENU } from './menuItems';
import { accessOf } from '../console/areas';
import { canOpen } from '../permissions/permissions';
import { ALL_PERMISSIONS, DEALER_PERMISSIONS } from '@app/contracts';

const paths = (sections: ReturnType<typeof filterMenu>) =>
  sections.flatMap((s) => s.items.flatMap((i) => (i.children ? i.children.map((c) => c.path) : [i.path])));

describe('menu filtering (docs/product.md section 2)', () => {
  it('a super admin sees every section and item', () => {
    const visible = filterMenu(MENU, ALL_PERMISSIONS);
    expect(visible.map((s) => s.key)).toEqual(['main', 'management', 'reports', 'configuration', 'system_monitoring']);
    expect(paths(visible)).toContain('/settings/roles');
  });

  it('hides items without any of their permissions, empty groups and empty section headings', () => {
    const visible = filterMenu(MENU, ['view roles', 'view admins']);
    expect(visible.map((s) => s.key)).toEqual(['management', 'configuration']);
    expect(paths(visible)).toEqual(['/admin', '/settings/roles']);
  });

  it('a dealer sees its own areas only', () => {
    const p = paths(filterMenu(MENU, DEALER_PERMISSIONS, 'dealer'));
    expect(p).toEqual([
      '/dashboard',
      '/my-shop',
      '/dealer-providers',
      '/banners',
      '/my-wallet',
      '/wallet-transactions',
      '/recharges',
      '/missed-sales',
      '/recharge-batches',
      '/api-keys',
      '/webhooks',
      '/reports',
      '/reports/dealer-profit',
      '/settings',
      '/settings/payment-methods',
      '/settings/contacts',
    ]);
    expect(p).not.toContain('/admin');
    expect(p).not.toContain('/settings/company');
    expect(p).not.toContain('/recharges/review');
    expect(p).not.toContain('/settings/money');
  });

  it('shows My wallet to dealers only: an admin holding every permission has no wallet of its own', () => {
    expect(paths(filterMenu(MENU, ALL_PERMISSIONS, 'admin'))).not.toContain('/my-wallet');
    expect(paths(filterMenu(MENU, ALL_PERMISSIONS))).not.toContain('/my-wallet');
    expect(paths(filterMenu(MENU, ALL_PERMISSIONS, 'dealer'))).toContain('/my-wallet');
    expect(paths(filterMenu(MENU, ALL_PERMISSIONS, 'admin'))).toContain('/wallet-transactions');
    // A shop of one's own too (GET /my-shop answers dealers only).
    expect(paths(filterMenu(MENU, ALL_PERMISSIONS, 'admin'))).not.toContain('/my-shop');
    expect(paths(filterMenu(MENU, ALL_PERMISSIONS, 'dealer'))).toContain('/my-shop');
  });

  it("shows the review queue to holders of 'review recharges' (with 'view recharges') only, and money limits with 'view company settings'", () => {
    const admin = paths(filterMenu(MENU, ALL_PERMISSIONS));
    expect(admin).toEqual(expect.arrayContaining(['/recharges', '/recharges/review', '/missed-sales', '/settings/money']));
    expect(paths(filterMenu(MENU, ['view recharges']))).toEqual(['/recharges', '/missed-sales', '/recharge-batches']);
    // The menu shows what opens: the queue needs 'view recharges' too (its route and the API's list do).
    expect(paths(filterMenu(MENU, ['review recharges']))).toEqual([]);
    expect(paths(filterMenu(MENU, ['view recharges', 'review recharges']))).toEqual(['/recharges', '/recharges/review', '/missed-sales', '/recharge-batches']);
    expect(activeGroupKeys(MENU, '/recharges/review/12')).toEqual(['recharges-group']);
  });

  it('the home page is the first visible menu path, else /dashboard', () => {
    expect(homePath(MENU, ALL_PERMISSIONS)).toBe('/dashboard');
    expect(homePath(MENU, ['view roles', 'view admins'])).toBe('/admin');
    expect(homePath(MENU, ['view trash items', 'view users'])).toBe('/trash/users');
    // A trash tab needs its resource's view permission too (docs/decisions.md "Access"): none readable, no trash entry.
    expect(homePath(MENU, ['view trash items'])).toBe('/dashboard');
    expect(homePath(MENU, [])).toBe('/dashboard');
    expect(homePath(MENU, null)).toBe('/dashboard');
  });

  it('opens the group holding the current path', () => {
    expect(activeGroupKeys(MENU, '/settings/roles')).toEqual(['settings']);
    expect(activeGroupKeys(MENU, '/dealers')).toEqual(['users']);
    expect(activeGroupKeys(MENU, '/dashboard')).toEqual([]);
  });

  it('shows an entry exactly when its page opens: the same access, asked the same way (console/areas.ts)', () => {
    const entries = (sections: ReturnType<typeof filterMenu>) => sections.flatMap((s) => s.items.flatMap((i) => i.children ?? [i]));
    for (const [perms, type] of [
      [ALL_PERMISSIONS, 'admin'],
      [DEALER_PERMISSIONS, 'dealer'],
      [['view reports'], 'admin'],
      [['view recharges', 'view own wallet'], 'dealer'],
    ] as const) {
      for (const item of entries(MENU as never)) {
        const shown = paths(filterMenu(MENU, perms, type)).includes(item.path);
        expect(shown, `${item.path} for ${type}`).toBe(canOpen(perms, type, accessOf(item.path!)));
      }
    }
  });
});
