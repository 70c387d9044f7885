import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNotify } from 'react-admin';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { fieldErrors, serverMessage } from '../providers/errors';

/**
 * One settings group (company, mail, money): its current values, and a save that answers the API's
 * field errors (whole messages) back to the form (react-admin's server-side validation shape), and
 * the toast on success.
 */
export function useSettingsGroup<T>(group: 'company' | 'mail' | 'money') {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const dataProvider = useConsoleDataProvider();
  const query = useQuery({ queryKey: ['settings', group], queryFn: async () => (await dataProvider.getSettings<T>(group)).data });
  const save = async (body: Record<string, unknown> | FormData): Promise<Record<string, string> | undefined> => {
    try {
      const res = await dataProvider.saveSettings<T>(group, { data: body });
      queryClient.setQueryData(['settings', group], res.data);
      if (group === 'company') await queryClient.invalidateQueries({ queryKey: ['settings', 'public'] });
      notify(res.message ?? 'ra.notification.updated', { type: 'success' });
      return undefined;
    } catch (e) {
      const fields = fieldErrors(e);
      if (Object.keys(fields).length) return fields;
      notify(serverMessage(e), { type: 'error' });
      return undefined;
    }
  };
  return { ...query, save };
}
