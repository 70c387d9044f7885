import type { ApiKeyMode } from '@app/contracts';

/**
 * Live or test (docs/api-conventions.md, "Test mode"): what a `rk_test_` key does is kept apart
 * from live money. A service context carries the mode of its caller (ServiceContext.mode: only a
 * test key's is `test`); rows carry it in their `mode` column; every reader of live money names
 * `mode = 'live'`.
 */
export type SaleMode = ApiKeyMode;

/** A row's mode as stored ('test' or anything else: live, so an unknown value never counts as play money's). */
export const modeOf = (value: string | null | undefined): SaleMode => (value === 'test' ? 'test' : 'live');
