/**
 * The permission catalogue: every permission the product checks, grouped by the console area
 * that shows it in the role form. Names come from docs/product.md section 6; the create/update/delete
 * variants are ours (docs/decisions.md, "Access"). Seeds insert these; the API and console check them
 * by name, so renaming one is a migration, not an edit here.
 */
export const PERMISSION_GROUPS = {
  dashboard: ['view dashboard'],
  'internet providers': [
    'view internet providers',
    'create internet providers',
    'update internet providers',
    'delete internet providers',
    'restore internet providers',
    'force delete internet providers',
    'view internet categories',
    'create internet categories',
    'update internet categories',
    'delete internet categories',
    'restore internet categories',
    'force delete internet categories',
    'view bundles',
    'view bundles prices',
    'create bundles',
    'update bundles',
    'delete bundles',
    'restore bundles',
    'force delete bundles',
    // The aggregators an operator's bundles are delivered through, and their catalogues (wholesale prices: staff only).
    'view delivery routes',
    'manage delivery routes',
  ],
  'dealer catalogue': [
    'view dealer providers',
    'update dealer providers',
    'view dealer categories',
    'update dealer categories',
    'view dealer bundles',
    'update dealer bundles',
  ],
  banners: ['view banners', 'create banners', 'update banners', 'delete banners', 'restore banners', 'force delete banners'],
  wallets: [
    'view wallets',
    'view own wallet',
    'view wallet transactions',
    'top up wallets',
    'adjust wallets',
    'request wallet top-ups',
    'review wallet top-ups',
  ],
  recharges: ['view recharges', 'retry recharges', 'refund recharges', 'review recharges'],
  // The daily close (reconciling a company day with the gateways' and aggregators' records): reading it, and handling its differences and closing it.
  reports: ['view reports', 'view dealer profit report', 'export reports', 'view daily close', 'manage daily close'],
  users: [
    'view users',
    'view admins',
    'view dealers',
    'create users',
    'update users',
    'delete users',
    'restore users',
    'force delete users',
    'change user status',
    'assign user roles',
    'reset two-factor',
  ],
  roles: ['view roles', 'create roles', 'update roles', 'delete roles', 'restore roles', 'force delete roles', 'assign permissions', 'require two-factor'],
  settings: [
    'manage settings',
    'view mail settings',
    'update mail settings',
    'view company settings',
    'update company settings',
    'view contact settings',
    'update contact settings',
    'view areas',
    'create areas',
    'update areas',
    'delete areas',
    'restore areas',
    'force delete areas',
    'view payment methods',
    'create payment methods',
    'update payment methods',
    'delete payment methods',
    'restore payment methods',
    'force delete payment methods',
  ],
  logs: ['view logs'],
  trash: ['view trash items'],
  'api keys': ['view api keys', 'manage api keys'],
  webhooks: ['view webhooks', 'manage webhooks'],
} as const satisfies Record<string, readonly string[]>;

export type PermissionGroup = keyof typeof PERMISSION_GROUPS;
/** One permission of the catalogue: a name outside it (a typo) is a compile error wherever permissions are named. */
export type Permission = (typeof PERMISSION_GROUPS)[PermissionGroup][number];
export type PermissionName = Permission;

export const ALL_PERMISSIONS: PermissionName[] = Object.values(PERMISSION_GROUPS).flat();

export const SUPER_ADMIN_ROLE = 'super-admin';
export const DEALER_ROLE = 'dealer';
export const GUARD_NAME = 'web';

/** What a dealer may do in the console (docs/decisions.md (Access)); data is always scoped to itself. */
export const DEALER_PERMISSIONS: PermissionName[] = [
  'view dashboard',
  'view own wallet',
  'view wallet transactions',
  'request wallet top-ups',
  'view recharges',
  'view reports',
  'view dealer profit report',
  // Its own sales and profit as CSV (the reports scope them to itself).
  'export reports',
  'view dealer providers',
  'update dealer providers',
  'view dealer categories',
  'update dealer categories',
  'view dealer bundles',
  'update dealer bundles',
  // A dealer pays (cost model) or earns over (profit model) the cost price: it must see it.
  'view bundles prices',
  // Dealers manage their own storefront banners, payment methods and contacts (the API forces
  // dealer_id to themselves); /settings shows them only those two children.
  ...PERMISSION_GROUPS.banners,
  'manage settings',
  ...PERMISSION_GROUPS.settings.filter((p) => p.endsWith(' payment methods') || p.endsWith(' contact settings')),
  // Dealers make and revoke their own reseller API keys (the API scopes them to themselves).
  ...PERMISSION_GROUPS['api keys'],
  // Dealers set their own webhook endpoint and follow its deliveries.
  ...PERMISSION_GROUPS.webhooks,
];
