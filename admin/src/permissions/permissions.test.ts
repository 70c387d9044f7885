import { describe, expect, it } from 'vitest';
import { canAccessLocally, canOpenRoute, canSeeMenuItem, hasAllPermissions, hasAnyPermission, hasPermission } from './permissions';

const perms = ['view users', 'view admins', 'create users'];

describe('permission checks by name (docs/product.md section 6)', () => {
  it('one', () => {
    expect(hasPermission(perms, 'view users')).toBe(true);
    expect(hasPermission(perms, 'view roles')).toBe(false);
  });
  it('any of a list', () => {
    expect(hasAnyPermission(perms, ['view roles', 'view admins'])).toBe(true);
    expect(hasAnyPermission(perms, ['view roles', 'view logs'])).toBe(false);
  });
  it('all of a list', () => {
    expect(hasAllPermissions(perms, ['view users', 'view admins'])).toBe(true);
    expect(hasAllPermissions(perms, ['view users', 'view roles'])).toBe(false);
  });
  it('with no user or no permission list every check is false', () => {
    for (const p of [null, undefined]) {
      expect(hasPermission(p, 'view users')).toBe(false);
      expect(hasAnyPermission(p, ['view users'])).toBe(false);
      expect(hasAllPermissions(p, ['view users'])).toBe(false);
      expect(canOpenRoute(p, [])).toBe(false);
    }
  });
  it('routes need all, menu items need any; no list means signed in / always shown', () => {
    expect(canOpenRoute(perms, ['view users', 'view roles'])).toBe(false);
    expect(canOpenRoute(perms, undefined)).toBe(true);
    expect(canSeeMenuItem(perms, ['view users', 'view roles'])).toBe(true);
    expect(canSeeMenuItem(null, undefined)).toBe(true);
  });
  it("answers react-admin's canAccess locally", () => {
    expect(canAccessLocally(perms, { resource: 'users', action: 'list' })).toBe(true);
    expect(canAccessLocally(perms, { resource: 'users', action: 'create' })).toBe(true);
    expect(canAccessLocally(perms, { resource: 'users', action: 'edit' })).toBe(false);
    expect(canAccessLocally(perms, { resource: 'roles', action: 'list' })).toBe(false);
    expect(canAccessLocally(['change user status'], { resource: 'users', action: 'change user status' })).toBe(true);
  });
});
