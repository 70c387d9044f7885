import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNotify } from 'react-admin';
import { apiFetch } from '../providers/http';

/**
 * One settings group (company, mail): its current values, and a save that answers the API's field
 * errors back to the form (react-admin's server-side validation shape) and the toast on success.
 */
export function useSettingsGroup<T>(group: 'company' | 'mail') {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const query = useQuery({ queryKey: ['settings', group], queryFn: async () => (await apiFetch<T>(`/settings/${group}`)).data as T });
  const save = async (body: Record<string, unknown> | FormData): Promise<Record<string, string> | undefined> => {
    try {
      const res = await apiFetch<T>(`/settings/${group}`, { method: 'PUT', body });
      queryClient.setQueryData(['settings', group], res.data);
      if (group === 'company') await queryClient.invalidateQueries({ queryKey: ['settings', 'public'] });
      notify(res.message ?? 'ra.notification.updated', { type: 'success' });
      return undefined;
    } catch (e) {
      const body = (e as { body?: { errors?: Record<string, string[]> } }).body;
      if (body?.errors) return Object.fromEntries(Object.entries(body.errors).map(([k, v]) => [k, v[0]]));
      notify((e as Error).message, { type: 'error' });
      return undefined;
    }
  };
  return { ...query, save };
}
