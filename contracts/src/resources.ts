import type { Permission } from './permissions.ts';

/**
 * The resource registry: each managed resource declared once. The API's generic routes, the
 * OpenAPI document, the route-permission test, and the console's resources, routes, menu,
 * canAccess mapping, trash tabs and global-search groups all read these declarations
 * (docs/architecture.md, "The resource registry"; README.md, "Adding a resource").
 */

/** What the generic routes can offer; a resource opts in to the ones it has. */
export const OPERATIONS = [
  'list',
  'show',
  'create',
  'update',
  'delete',
  'trashList',
  'trashShow',
  'restore',
  'forceDelete',
  'search',
  'bulkCreate',
  'bulkDelete',
  'bulkRestore',
  'bulkForceDelete',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** The full soft-delete lifecycle of docs/product.md section 7. */
export const SOFT_DELETE_LIFECYCLE: readonly Operation[] = OPERATIONS;

/** "Any signed-in user": stated explicitly; a route with no permission at all is refused at startup. */
export const SIGNED_IN = '(signed in)' as const;

export interface ResourcePermissions {
  /** Reading needs any one of these (the API's scope narrows the rows). */
  view: readonly Permission[];
  create?: Permission;
  update?: Permission;
  delete?: Permission;
  restore?: Permission;
  forceDelete?: Permission;
  /** Reading the trash needs this as well as a `view` permission. */
  trash?: Permission;
}

/** A noun with the whole lifecycle in the catalogue (view, create, update, delete, restore, force delete). */
type LifecycleNoun = Permission extends infer P ? (P extends `force delete ${infer N}` ? N : never) : never;

export interface ResourceDefinition {
  /** react-admin resource name and the API endpoint below /api/v1 (`/${name}`). */
  name: string;
  /** Where the console lists it (may differ from the endpoint: roles live under /settings/roles). */
  consolePath: string;
  /** Translation key of its plural label (menu, trash tab, search group). */
  labelKey: string;
  /** Key of the console's icon map. */
  icon: string;
  /** Field that names a record in references, breadcrumbs and search results. */
  recordRepresentation: string;
  /** Message keys are `${messagePrefix}.created`, `.updated`, `.bulk_deleted` ... in locales/{lng}/api.json. */
  messagePrefix: string;
  /** Activity log subject type. */
  subjectType: string;
  operations: readonly Operation[];
  permissions: ResourcePermissions;
  /** Columns `q` searches (list, /search, the global search). */
  searchable: readonly string[];
  /** Shown as a group of the header's global search. */
  globalSearch?: boolean;
  /** Dealer-owned rows: dealers read and write only rows with this column = their id, forced on writes. */
  ownerColumn?: string;
  /** With ownerColumn: null means "every dealer" (global rows that only admins manage). */
  ownerOptional?: boolean;
  /** Has an active/inactive status that lists can toggle. */
  statusToggle?: boolean;
  /** Uploaded image fields (multipart), stored through FileStorage, removed with the record. */
  imageFields?: readonly string[];
}

const P = <N extends LifecycleNoun>(noun: N, extra: Partial<ResourcePermissions> = {}): ResourcePermissions => ({
  // Each is in the catalogue: LifecycleNoun is read from it.
  view: [`view ${noun}` as Permission],
  create: `create ${noun}` as Permission,
  update: `update ${noun}` as Permission,
  delete: `delete ${noun}` as Permission,
  restore: `restore ${noun}` as Permission,
  forceDelete: `force delete ${noun}` as Permission,
  trash: 'view trash items',
  ...extra,
});

export const RESOURCES = {
  users: {
    name: 'users',
    consolePath: '/admin',
    labelKey: 'menu.users',
    icon: 'people',
    recordRepresentation: 'name',
    messagePrefix: 'api:users',
    subjectType: 'user',
    operations: SOFT_DELETE_LIFECYCLE,
    // /admin needs 'view admins' and /dealers 'view dealers' (docs/product.md section 2): either opens
    // the list, narrowed to that user type.
    permissions: P('users', { view: ['view users', 'view admins', 'view dealers'] }),
    searchable: ['name', 'email', 'phone', 'dealer_code'],
    globalSearch: true,
    statusToggle: true,
    imageFields: ['dealer_logo'],
  },
  roles: {
    name: 'roles',
    consolePath: '/settings/roles',
    labelKey: 'menu.roles',
    icon: 'security',
    recordRepresentation: 'name',
    messagePrefix: 'api:roles',
    subjectType: 'role',
    operations: SOFT_DELETE_LIFECYCLE,
    permissions: P('roles'),
    searchable: ['name', 'description'],
    globalSearch: true,
  },
  banners: {
    name: 'banners',
    consolePath: '/banners',
    labelKey: 'menu.banners',
    icon: 'banners',
    recordRepresentation: 'title',
    messagePrefix: 'api:banners',
    subjectType: 'banner',
    // No bulk create: every banner needs its image, which a JSON array cannot carry.
    operations: SOFT_DELETE_LIFECYCLE.filter((op) => op !== 'bulkCreate'),
    permissions: P('banners'),
    searchable: ['title', 'link_url'],
    ownerColumn: 'dealer_id',
    ownerOptional: true,
    statusToggle: true,
    imageFields: ['image'],
  },
  'internet-providers': {
    name: 'internet-providers',
    consolePath: '/internet-providers',
    labelKey: 'menu.internet_providers',
    icon: 'providers',
    recordRepresentation: 'name',
    messagePrefix: 'api:providers',
    subjectType: 'provider',
    operations: SOFT_DELETE_LIFECYCLE,
    permissions: P('internet providers'),
    searchable: ['name', 'code'],
    globalSearch: true,
    statusToggle: true,
    imageFields: ['logo'],
  },
  // Categories and bundles open under their provider in the console (nested routes).
  'internet-categories': {
    name: 'internet-categories',
    consolePath: '/internet-providers',
    labelKey: 'menu.internet_categories',
    icon: 'categories',
    recordRepresentation: 'name',
    messagePrefix: 'api:categories',
    subjectType: 'category',
    operations: SOFT_DELETE_LIFECYCLE,
    permissions: P('internet categories'),
    searchable: ['name', 'description'],
    statusToggle: true,
  },
  bundles: {
    name: 'bundles',
    consolePath: '/internet-providers',
    labelKey: 'menu.bundles',
    icon: 'bundles',
    recordRepresentation: 'name',
    messagePrefix: 'api:bundles',
    subjectType: 'bundle',
    operations: SOFT_DELETE_LIFECYCLE,
    permissions: P('bundles'),
    searchable: ['name', 'operator_product_code'],
    globalSearch: true,
    statusToggle: true,
  },
  'payment-methods': {
    name: 'payment-methods',
    consolePath: '/settings/payment-methods',
    labelKey: 'menu.settings_payment_methods',
    icon: 'payments',
    recordRepresentation: 'name',
    messagePrefix: 'api:payment_methods',
    subjectType: 'payment_method',
    operations: SOFT_DELETE_LIFECYCLE,
    permissions: P('payment methods'),
    searchable: ['name', 'account_number'],
    ownerColumn: 'dealer_id',
    ownerOptional: true,
    statusToggle: true,
    imageFields: ['logo'],
  },
  contacts: {
    name: 'contacts',
    consolePath: '/settings/contacts',
    labelKey: 'menu.settings_contacts',
    icon: 'contacts',
    recordRepresentation: 'value',
    messagePrefix: 'api:contacts',
    subjectType: 'contact',
    operations: SOFT_DELETE_LIFECYCLE,
    // docs/product.md names 'view contact settings'; every change needs 'update contact settings'.
    permissions: {
      view: ['view contact settings'],
      create: 'update contact settings',
      update: 'update contact settings',
      delete: 'update contact settings',
      restore: 'update contact settings',
      forceDelete: 'update contact settings',
      trash: 'view trash items',
    },
    searchable: ['label', 'value'],
    ownerColumn: 'dealer_id',
    ownerOptional: true,
    statusToggle: true,
  },
  areas: {
    name: 'areas',
    consolePath: '/settings/areas',
    labelKey: 'menu.settings_areas',
    icon: 'areas',
    recordRepresentation: 'name',
    messagePrefix: 'api:areas',
    subjectType: 'area',
    operations: SOFT_DELETE_LIFECYCLE,
    permissions: P('areas'),
    searchable: ['name', 'code'],
    statusToggle: true,
  },
} as const satisfies Record<string, ResourceDefinition>;

export type ResourceName = keyof typeof RESOURCES;
export const RESOURCE_LIST: readonly ResourceDefinition[] = Object.values(RESOURCES);

export const hasOperation = (def: ResourceDefinition, op: Operation): boolean => def.operations.includes(op);

/** Resources whose trash the console shows as tabs of /trash. */
export const TRASHABLE_RESOURCES: readonly ResourceDefinition[] = RESOURCE_LIST.filter((r) => r.operations.includes('trashList'));

/**
 * The permission an operation needs, as the route table and the console's canAccess read it:
 * `all` must all be held, then at least one of `any`.
 */
export function operationPermissions(def: ResourceDefinition, op: Operation): { all: Permission[]; any: Permission[] } {
  const p = def.permissions;
  const need = (name: Permission | undefined) => {
    if (!name) throw new Error(`Resource ${def.name} offers ${op} but declares no permission for it`);
    return name;
  };
  switch (op) {
    case 'list':
    case 'show':
    case 'search':
      return { all: [], any: [...p.view] };
    case 'trashList':
    case 'trashShow':
      return { all: [need(p.trash)], any: [...p.view] };
    case 'create':
    case 'bulkCreate':
      return { all: [need(p.create)], any: [] };
    case 'update':
      return { all: [need(p.update)], any: [] };
    case 'delete':
    case 'bulkDelete':
      return { all: [need(p.delete)], any: [] };
    case 'restore':
    case 'bulkRestore':
      return { all: [need(p.restore)], any: [] };
    case 'forceDelete':
    case 'bulkForceDelete':
      return { all: [need(p.forceDelete)], any: [] };
  }
}

/**
 * The dealer catalogue (docs/data-model.md, Dealer catalogue): not records with a lifecycle but
 * each dealer's switch and price over the company's operators, categories and bundles. Their
 * own routes (api/src/dealer-catalogue) and screens (admin/src/dealer-catalogue) read these.
 */
export interface SelectionDefinition {
  name: string;
  labelKey: string;
  view: Permission;
  update: Permission;
}
export const DEALER_CATALOGUE = {
  providers: { name: 'dealer-providers', labelKey: 'menu.dealer_providers', view: 'view dealer providers', update: 'update dealer providers' },
  categories: { name: 'dealer-categories', labelKey: 'menu.dealer_categories', view: 'view dealer categories', update: 'update dealer categories' },
  bundles: { name: 'dealer-bundles', labelKey: 'menu.dealer_bundles', view: 'view dealer bundles', update: 'update dealer bundles' },
} as const satisfies Record<string, SelectionDefinition>;
