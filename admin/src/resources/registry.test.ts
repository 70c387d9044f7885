import { describe, expect, it } from 'vitest';
import { DEALER_PERMISSIONS, RESOURCES } from '@app/contracts';
import { canAccessFromRegistry, recordPath, TRASH_TABS } from './registry';
import { accessOf } from '../console/areas';

describe('the console reads the resource registry', () => {
  it('answers canAccess with the permission the API route needs', () => {
    const viewer = ['view dealers'];
    expect(canAccessFromRegistry(viewer, { resource: 'users', action: 'list' })).toBe(true);
    expect(canAccessFromRegistry(viewer, { resource: 'users', action: 'edit' })).toBe(false);
    // The trash needs "view trash items" as well as a view permission.
    expect(canAccessFromRegistry(['view trash items'], { resource: 'roles', action: 'trash' })).toBe(false);
    expect(canAccessFromRegistry(['view trash items', 'view roles'], { resource: 'roles', action: 'trash' })).toBe(true);
    expect(canAccessFromRegistry(DEALER_PERMISSIONS, { resource: 'banners', action: 'create' })).toBe(true);
    expect(canAccessFromRegistry(DEALER_PERMISSIONS, { resource: 'roles', action: 'list' })).toBe(false);
    expect(canAccessFromRegistry(null, { resource: 'banners', action: 'list' })).toBe(false);
    // Missed sales are read as sales are (GET /missed-sales needs 'view recharges').
    expect(canAccessFromRegistry(['view recharges'], { resource: 'missed-sales', action: 'list' })).toBe(true);
    expect(canAccessFromRegistry(['view wallets'], { resource: 'missed-sales', action: 'list' })).toBe(false);
    // The aggregator catalogue is read with the routes (GET /aggregators/{aggregator}/products needs 'view delivery routes').
    expect(canAccessFromRegistry(['view delivery routes'], { resource: 'aggregator-catalogue', action: 'list' })).toBe(true);
    expect(canAccessFromRegistry(['view internet providers'], { resource: 'aggregator-catalogue', action: 'list' })).toBe(false);
    // An operation the resource does not offer is never allowed (banners have no bulk create).
    expect(RESOURCES.banners.operations).not.toContain('bulkCreate');
    expect(canAccessFromRegistry(['change user status'], { resource: 'users', action: 'change user status' })).toBe(true);
    // The dealer catalogue: its view permission reads, its update permission switches and prices.
    expect(canAccessFromRegistry(DEALER_PERMISSIONS, { resource: 'dealer-bundles', action: 'list' })).toBe(true);
    expect(canAccessFromRegistry(DEALER_PERMISSIONS, { resource: 'dealer-bundles', action: 'edit' })).toBe(true);
    expect(canAccessFromRegistry(['view dealer bundles'], { resource: 'dealer-bundles', action: 'edit' })).toBe(false);
    expect(canAccessFromRegistry(['view dealer bundles'], { resource: 'dealer-providers', action: 'list' })).toBe(false);
  });

  it('links a record to where the console shows it', () => {
    expect(recordPath('users', { id: 5, user_type: 'dealer' })).toBe('/dealers/5');
    expect(recordPath('users', { id: 6, user_type: 'admin' })).toBe('/admin/6');
    expect(recordPath('roles', { id: 7 })).toBe('/settings/roles/7');
    expect(recordPath('banners', { id: 8 })).toBe('/banners/8');
    expect(recordPath('internet-categories', { id: 9, provider_id: 2 })).toBe('/internet-providers/2/categories/9');
    expect(recordPath('bundles', { id: 10, category_id: 9, provider: { id: 2 } })).toBe('/internet-providers/2/categories/9/bundles/10');
    expect(recordPath('payment-methods', { id: 11 })).toBe('/settings/payment-methods/11');
  });

  it('opens a registry list with its view permissions, and builds the trash tabs from the declarations', () => {
    expect(accessOf('/banners')).toEqual({ anyOf: RESOURCES.banners.permissions.view });
    expect(TRASH_TABS.map((t) => t.path)).toEqual([
      '/trash/users',
      '/trash/roles',
      '/trash/banners',
      '/trash/internet-providers',
      '/trash/internet-categories',
      '/trash/bundles',
      '/trash/payment-methods',
      '/trash/contacts',
      '/trash/areas',
    ]);
  });
});
