import { useCanAccess, useGetOne, type GetOneParams, type RaRecord } from 'react-admin';

/**
 * The record a nested page sits under (an operator above its categories), read for the page's title
 * and breadcrumbs only when the user may read it: a role may hold the page's own permission ("view
 * internet categories") without its parent's, and a refused call would end in an error on a page the
 * user may open. `readable` false: the page names the parent no further.
 */
export function useParentRecord<T extends RaRecord>(resource: string, id: string, options: { meta?: GetOneParams['meta']; enabled?: boolean } = {}) {
  const { canAccess } = useCanAccess({ resource, action: 'show' });
  const { data } = useGetOne<T>(resource, { id, meta: options.meta }, { enabled: canAccess === true && (options.enabled ?? true) });
  return { record: data, readable: canAccess !== false };
}
