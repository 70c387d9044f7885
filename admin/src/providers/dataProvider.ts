import { useDataProvider, type DataProvider } from 'react-admin';
import { restProvider, type RestProvider } from './rest';
import { walletCalls } from '../wallets/walletCalls';
import { rechargeCalls, rechargeRecords } from '../recharges/rechargeCalls';
import { reportCalls } from '../reports/reportCalls';
import { dashboardCalls } from '../dashboard/dashboardCalls';
import { searchCalls } from '../search/searchCalls';
import { settingsCalls } from '../settings/settingsCalls';
import { apiKeyCalls } from '../api-keys/apiKeyCalls';
import { webhookCalls } from '../webhooks/webhookCalls';
import { aggregatorCatalogueRecords, routingCalls } from '../routing/routingCalls';
import { dailyCloseCalls, dailyCloseRecords } from '../daily-close/dailyCloseCalls';
import { roleCalls, roleRecords } from '../roles/roleCalls';
import { userCalls, userRecords } from '../users/userCalls';
import { myShopCalls } from '../my-shop/myShopCalls';
import { dealerCatalogueCalls } from '../dealer-catalogue/dealerCatalogueCalls';

export { listQuery, type Said } from './rest';

/**
 * The console's dataProvider: the generic REST part for the /api/v1 pattern (rest.ts), a few
 * resources' own readings of it (below), and each area's calls beyond CRUD, kept in the area's
 * folder (wallets/walletCalls.ts, recharges/rechargeCalls.ts ...). An equivalent of react-admin's
 * combineDataProviders that also carries the areas' own methods (which take no resource name).
 * A new CRUD resource needs nothing here; a new call goes in its area's module and its line below.
 */
const AREA_CALLS = {
  ...walletCalls,
  ...rechargeCalls,
  ...reportCalls,
  ...dashboardCalls,
  ...searchCalls,
  ...settingsCalls,
  ...apiKeyCalls,
  ...webhookCalls,
  ...routingCalls,
  ...dailyCloseCalls,
  ...roleCalls,
  ...userCalls,
  ...myShopCalls,
  ...dealerCatalogueCalls,
};

/** Resources whose records read or write differently from the pattern, by the standard method they change. */
const RESOURCE_RECORDS: Record<string, Partial<DataProvider>> = {
  recharges: rechargeRecords,
  roles: roleRecords,
  users: userRecords,
  'daily-close': dailyCloseRecords,
  'aggregator-catalogue': aggregatorCatalogueRecords,
};

export type ConsoleDataProvider = RestProvider & typeof AREA_CALLS;

const STANDARD = ['getList', 'getOne', 'getMany', 'getManyReference', 'create', 'update', 'updateMany', 'delete', 'deleteMany'] as const;

function combine(): ConsoleDataProvider {
  const combined = { ...restProvider, ...AREA_CALLS } as ConsoleDataProvider;
  for (const method of STANDARD) {
    const fallback = restProvider[method] as (...args: unknown[]) => Promise<unknown>;
    // `this` is the combined provider, so getManyReference lists through a resource's own getList.
    (combined as unknown as Record<string, unknown>)[method] = (resource: string, params: unknown) =>
      ((RESOURCE_RECORDS[resource]?.[method] as typeof fallback | undefined) ?? fallback).call(combined, resource, params);
  }
  return combined;
}

export const dataProvider: ConsoleDataProvider = combine();

/** The console's dataProvider with its own methods, for components (react-admin's useDataProvider, typed). */
export const useConsoleDataProvider = () => useDataProvider<ConsoleDataProvider>();
