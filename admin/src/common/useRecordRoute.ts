import { useParams } from 'react-router';
import { useGetOne, useNavigate, useNotify, type RaRecord } from 'react-admin';
import { useEffect, useRef } from 'react';
import { useListUrls } from './listUrl';

/**
 * Every record has a URL: `${base}/create` opens the new-record form and `${base}/{id}` the
 * record's form, over the list at `${base}`; a reload keeps it open. The list's route ends in
 * `/*`, so the rest of the path arrives as the splat parameter. Opening and closing keep the
 * list's query string (its filter, sort and page: `useListUrls`); `path(id)` is a row's link.
 */
export function useRecordRoute<T extends RaRecord>(base: string, resource: string) {
  const rest = (useParams()['*'] ?? '').split('/')[0];
  const navigate = useNavigate();
  const notify = useNotify();
  const urls = useListUrls(base);
  const mode = rest === 'create' ? 'create' : rest ? 'edit' : null;
  const id = mode === 'edit' ? rest : undefined;
  const { data, error } = useGetOne<T>(resource, { id: id! }, { enabled: !!id, retry: false });
  useEffect(() => {
    if (!error) return;
    notify('ra.notification.item_doesnt_exist', { type: 'warning' });
    navigate(urls.list, { replace: true });
  }, [error, urls.list, navigate, notify]);
  const record = mode === 'edit' && data && String(data.id) === String(id) ? data : null;
  // While the form closes (its animation), it keeps showing the record it had.
  const last = useRef<T | null>(null);
  if (record || mode === 'create') last.current = record;
  return {
    /** Open: the create form, or the edit form once its record has loaded. */
    open: mode === 'create' || !!record,
    mode,
    record: mode === null ? last.current : record,
    /** A record's URL over the list (a row's link), with the list's query string. */
    path: (id: RaRecord['id']) => urls.record(id),
    openCreate: () => navigate(urls.record('create')),
    openEdit: (r: { id: RaRecord['id'] }) => navigate(urls.record(r.id)),
    close: () => navigate(urls.list),
    /** Back to the list with a location state for it (what the list shows next, e.g. an offer). */
    closeWith: (state: Record<string, unknown>) => navigate(urls.list, { state }),
  };
}
