import { Navigate, useLocation } from 'react-router';

/**
 * List filters live in the URL: react-admin's List (syncWithLocation, its default) keeps its
 * filter, sort, page and perPage in the query string (`?filter={"q":"hodan"}&sort=name&page=2`),
 * so a list can be shared and reloaded. A record opened over its list (`{base}/{id}`, a
 * slide-over or dialog) keeps that query string, and closing it goes back to `{base}` with it,
 * so the list behind the record stays as it was.
 *
 * Only for a page's main list: a second list on the same page (or one inside a dialog) turns
 * URL sync off (`disableSyncWithLocation`), or the two would share one query string. Links to
 * another list (an operator's categories) do not carry this list's query: it is not theirs.
 */
export function useListUrls(base: string) {
  const { search } = useLocation();
  return {
    /** The list's query string as it is now ('' or '?filter=...'). */
    search,
    /** The list itself, filtered, sorted and paged as it is. */
    list: `${base}${search}`,
    /** A record (or 'create') over the list, keeping the list's query string. */
    record: (id: string | number) => `${base}/${id}${search}`,
  };
}

/**
 * Links from other pages may preset a list's filters with plain parameters
 * (`/recharges?status=completed&from=...`, `/wallet-transactions?dealer=5`); react-admin reads
 * only its own `filter` parameter. Returns where to go instead (the same path with those values
 * moved into `filter`, other parameters kept), or null when there is nothing to move.
 * `presets` maps a URL parameter to the filter it sets ({ dealer: 'dealer_id' }).
 */
export function presetTarget(pathname: string, search: string, presets: Record<string, string>): string | null {
  const params = new URLSearchParams(search);
  const moved: Record<string, string> = {};
  for (const [key, source] of Object.entries(presets)) {
    const value = params.get(key);
    if (value === null) continue;
    params.delete(key);
    if (value !== '') moved[source] = value;
  }
  if (Object.keys(moved).length === 0 && params.toString() === new URLSearchParams(search).toString()) return null;
  let filter: Record<string, unknown> = {};
  try {
    const current: unknown = JSON.parse(params.get('filter') ?? '{}');
    if (current && typeof current === 'object') filter = current as Record<string, unknown>;
  } catch {
    /* a broken filter parameter is replaced */
  }
  params.set('filter', JSON.stringify({ ...filter, ...moved }));
  // A preset starts the list over: first page.
  params.delete('page');
  return `${pathname}?${params.toString()}`;
}

/**
 * Renders the redirect of `presetTarget` for the current URL, or null when the URL already is
 * the list's own. Call the hook first, then `if (redirect) return redirect;` before the List, so
 * the List never reads the plain parameters.
 */
export function usePresetFilters(presets: Record<string, string>) {
  const { pathname, search } = useLocation();
  const target = presetTarget(pathname, search, presets);
  return target ? <Navigate to={target} replace /> : null;
}
