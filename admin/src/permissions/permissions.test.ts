import { describe, expect, it } from 'vitest';
import { canAccessLocally, canOpen, canOpenRoute, hasAllPermissions, hasAnyPermission, hasPermission } from './permissions';

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
  it('a page needs all its permissions, one of its anyOf, and its kind of user; no list means signed in', () => {
    expect(canOpenRoute(perms, ['view users', 'view roles'])).toBe(false);
    expect(canOpenRoute(perms, undefined)).toBe(true);
    expect(canOpen(perms, 'admin', { permissions: ['view users'] })).toBe(true);
    expect(canOpen(perms, 'admin', { permissions: ['view users', 'view roles'] })).toBe(false);
    expect(canOpen(perms, 'admin', { anyOf: ['view roles', 'view users'] })).toBe(true);
    expect(canOpen(perms, 'admin', { anyOf: ['view roles'] })).toBe(false);
    expect(canOpen(perms, 'admin', { userTypes: ['dealer'] })).toBe(false);
    expect(canOpen(perms, 'dealer', { userTypes: ['dealer'] })).toBe(true);
    expect(canOpen(null, 'admin', {})).toBe(false);
  });
  it("answers react-admin's canAccess locally", () => {
    expect(canAccessLocally(perms, { resource: 'users', action: 'list' })).toBe(true);
    expect(canAccessLocally(perms, { resource: 'users', action: 'create' })).toBe(true);
    expect(canAccessLocally(perms, { resource: 'users', action: 'edit' })).toBe(false);
    expect(canAccessLocally(perms, { resource: 'roles', action: 'list' })).toBe(false);
    expect(canAccessLocally(['change user status'], { resource: 'users', action: 'change user status' })).toBe(true);
  });
});
