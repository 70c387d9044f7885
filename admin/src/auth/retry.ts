/** Retry rule of docs/product.md section 9 for the current-user and lock-check queries. */
export const authRetry = (failureCount: number, error: unknown): boolean => {
  const status = (error as { status?: number })?.status;
  if (status === 401 || status === 403) return false;
  return failureCount < 2;
};
export const ME_STALE_MS = 5 * 60 * 1000;
export const LOCK_STALE_MS = 30 * 1000;
