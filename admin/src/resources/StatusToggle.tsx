import { useCanAccess, useNotify, useRecordContext, useResourceContext, useTranslate, useUpdate } from 'react-admin';
import { Switch } from '@mui/material';
import { useDoneToast } from '../common/DoneToast';

/** The active/inactive switch of a list row (registry `statusToggle`), saved at once and said by name. */
export function StatusToggle() {
  const record = useRecordContext<{ id: number; status: 'active' | 'inactive' }>();
  const resource = useResourceContext()!;
  const translate = useTranslate();
  const notify = useNotify();
  const { canAccess } = useCanAccess({ resource, action: 'edit' });
  const toast = useDoneToast();
  const [update, { isPending }] = useUpdate();
  if (!record) return null;
  const active = record.status === 'active';
  return (
    <Switch
      checked={active}
      disabled={!canAccess || isPending}
      slotProps={{ input: { 'aria-label': translate(active ? 'resources_common.deactivate' : 'resources_common.activate') } }}
      onClick={(e) => e.stopPropagation()}
      onChange={() =>
        update(
          resource,
          { id: record.id, data: { status: active ? 'inactive' : 'active' }, previousData: record },
          {
            mutationMode: 'pessimistic',
            onSuccess: () => toast(active ? 'deactivated' : 'activated', resource, record),
            onError: (e) => notify((e as Error).message, { type: 'error' }),
          },
        )
      }
    />
  );
}
