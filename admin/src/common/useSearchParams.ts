import { useMemo } from 'react';
import { useLocation } from 'react-admin';

/** The current query string, through react-admin's router abstraction. */
export function useSearchParams(): [URLSearchParams] {
  const { search } = useLocation();
  return [useMemo(() => new URLSearchParams(search), [search])];
}
