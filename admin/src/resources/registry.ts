import { DEALER_CATALOGUE, RESOURCE_LIST, TRASHABLE_RESOURCES, operationPermissions, type Operation, type ResourceDefinition } from '@app/contracts/resources';
import type { Perms } from '../permissions/permissions';

/**
 * The console's reading of the resource registry (contracts/src/resources.ts): the console URL of
 * a record, the trash tab of a resource, and canAccess for its actions. Its screens and menu
 * entries are declared by their areas (banners/index.ts ...; console/areas.ts).
 */
export const resourceDef = (name: string): ResourceDefinition | undefined => RESOURCE_LIST.find((r) => r.name === name);

/** Where a record opens in the console: users by their type (/admin or /dealers), others under their console path. */
export function recordPath(
  resource: string,
  record: { id: number | string; user_type?: string; provider_id?: number; category_id?: number; provider?: { id: number } | null; dealer_id?: number },
): string {
  if (resource === 'users') return `${record.user_type === 'dealer' ? '/dealers' : '/admin'}/${record.id}`;
  // Categories and bundles open under their operator (and category).
  if (resource === 'internet-categories') return `/internet-providers/${record.provider_id}/categories/${record.id}`;
  // A wallet's page is its ledger.
  if (resource === 'wallets') return `/wallet-transactions?dealer=${record.dealer_id}`;
  if (resource === 'bundles') return `/internet-providers/${record.provider?.id}/categories/${record.category_id}/bundles/${record.id}`;
  return `${resourceDef(resource)?.consolePath ?? `/${resource}`}/${record.id}`;
}

/** The trash tabs: every resource that has a trash, and the permissions of which one reads it (beside `view trash items`, docs/decisions.md "Access"). */
export const TRASH_TABS = TRASHABLE_RESOURCES.map((def) => ({
  resource: def.name,
  path: `/trash/${def.name}`,
  label: def.labelKey,
  readWith: def.permissions.view,
}));

const ACTIONS: Record<string, Operation> = {
  list: 'list',
  show: 'show',
  create: 'create',
  edit: 'update',
  delete: 'delete',
  restore: 'restore',
  force_delete: 'forceDelete',
  trash: 'trashList',
};

const held = (perms: Perms, need: { all: string[]; any: string[] }) =>
  !!perms && need.all.every((p) => perms.includes(p)) && (need.any.length === 0 || need.any.some((p) => perms.includes(p)));

/**
 * react-admin's canAccess answered from the registry: an action of a registry resource needs
 * what the API's route for it needs. A full permission name ('change user status') is checked
 * as it is. Resources not in the registry yet fall back to "<verb> <resource>".
 */
/** Read-only lists read with another area's permission (as the API checks them). */
const READ_WITH: Record<string, string> = {
  // Sales refused for want of wallet money are part of the sales record.
  'missed-sales': 'view recharges',
  // The aggregators' synced products (GET /aggregators/{aggregator}/products).
  'aggregator-catalogue': 'view delivery routes',
};

export function canAccessFromRegistry(perms: Perms, { action, resource }: { action: string; resource: string }): boolean {
  if (action.includes(' ')) return !!perms && perms.includes(action);
  const def = resourceDef(resource);
  const op = ACTIONS[action];
  if (def && op) return def.operations.includes(op) && held(perms, operationPermissions(def, op));
  // The dealer catalogue: read with its view permission, change (switch, price) with its update one.
  const selection = Object.values(DEALER_CATALOGUE).find((s) => s.name === resource);
  if (selection)
    return !!perms && (action === 'list' || action === 'show' ? perms.includes(selection.view) : action === 'edit' && perms.includes(selection.update));
  const reads = action === 'list' || action === 'show';
  if (reads && READ_WITH[resource]) return !!perms && perms.includes(READ_WITH[resource]);
  const verb = reads ? 'view' : action === 'edit' ? 'update' : action.replace('_', ' ');
  // wallet-transactions -> "view wallet transactions".
  return !!perms && perms.includes(`${verb} ${resource.replace(/-/g, ' ')}`);
}
