export const DEALER_ROLE = 'dealer';
export const SUPER_ADMIN_ROLE = 'super-admin';
export const GUARD_NAME = 'web';
