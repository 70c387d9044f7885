import { describe, expect, it } from 'vitest';
import { RESOURCE_LIST } from '@app/contracts/resources';
import { CONSOLE_RESOURCES, MENU_PLACEMENTS, PAGES, REGISTRY_LISTS, accessOf, guardPath } from './areas';
import { authProvider } from '../providers/authProvider';
import { clearSession, startSession } from '../providers/session';

/** The one table of the console's screens (console/areas.ts): every guard finds its page's access, and an unknown path opens for nobody. */
describe("the console's table of screens", () => {
  it('every route the app renders has its access in the table (the guards ask by these paths)', () => {
    const guarded = [
      ...PAGES.map((p) => guardPath(p.path)),
      ...CONSOLE_RESOURCES.flatMap((r) => [`/${r.name}`, ...(r.children ?? []).map((c) => guardPath(`/${r.name}/${c.path}`))]),
      ...RESOURCE_LIST.filter((def) => REGISTRY_LISTS[def.name]).map((def) => `/${def.name}`),
    ];
    expect(guarded.length).toBeGreaterThan(40);
    for (const path of guarded) expect(accessOf(path), path).toBeDefined();
    expect(new Set(guarded).size).toBe(guarded.length);
    // Every menu entry opens a page of the table.
    for (const entry of MENU_PLACEMENTS) expect(accessOf(entry.path), entry.key).toBeDefined();
  });

  it("canAccess 'open': by the page's access; a path the table does not have opens for nobody", async () => {
    startSession('t', { id: 1, name: 'A', email: 'a@x.so', user_type: 'admin', permissions: [{ name: 'view recharges' }] }, false);
    await expect(authProvider.canAccess!({ resource: '/recharges', action: 'open' })).resolves.toBe(true);
    await expect(authProvider.canAccess!({ resource: '/recharges/review', action: 'open' })).resolves.toBe(false);
    await expect(authProvider.canAccess!({ resource: '/my-wallet', action: 'open' })).resolves.toBe(false);
    await expect(authProvider.canAccess!({ resource: '/search', action: 'open' })).resolves.toBe(true);
    await expect(authProvider.canAccess!({ resource: '/no-such-page', action: 'open' })).resolves.toBe(false);
    clearSession();
  });
});
