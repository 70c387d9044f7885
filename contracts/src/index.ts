/**
 * @app/contracts: what the API, the console and the storefront share on purpose. Only zod is
 * imported anywhere in this package, so the console and storefront bundles can take it whole.
 */
export * from './common.ts';
export * from './list-query.ts';
export * from './translations.ts';
export * from './permissions.ts';
export * from './users.ts';
export * from './roles.ts';
export * from './auth.ts';
export * from './money.ts';
export * from './banners.ts';
export * from './catalogue.ts';
export * from './routing.ts';
export * from './aggregators.ts';
export * from './settings.ts';
export * from './wallets.ts';
export * from './dealer-shop.ts';
export * from './recharges.ts';
export * from './phone.ts';
export * from './resources.ts';
export * from './responses.ts';
export * from './api-keys.ts';
export * from './two-factor.ts';
export * from './webhooks.ts';
export * from './daily-close.ts';
export * from './recharge-batches.ts';
