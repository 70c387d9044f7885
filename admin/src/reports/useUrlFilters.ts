import { useCallback, useMemo, type ChangeEvent } from 'react';
import { useSearchParams } from 'react-router';

/**
 * A page's filters kept in the URL's query string rather than in component state: a link to the
 * page with its filters can be shared, bookmarked and reloaded. A filter at its default value is
 * left out of the URL. Changes replace the history entry (typing a date is not a page to go back to).
 */
export function useUrlFilters<T extends Record<string, string>>(defaults: T): [T, (key: keyof T) => (e: ChangeEvent<HTMLInputElement>) => void] {
  const [params, setParams] = useSearchParams();
  const key = JSON.stringify(defaults);
  const values = useMemo(
    () => Object.fromEntries(Object.entries(defaults).map(([k, d]) => [k, params.get(k) ?? d])) as T,
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [params, key],
  );
  const set = useCallback(
    (k: keyof T) => (e: ChangeEvent<HTMLInputElement>) => {
      const value = e.target.value;
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          if (value === '' || value === defaults[k]) next.delete(String(k));
          else next.set(String(k), value);
          return next;
        },
        { replace: true },
      );
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [setParams, key],
  );
  return [values, set];
}
