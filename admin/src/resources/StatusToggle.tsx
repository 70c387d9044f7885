import { useCanAccess, useNotify, useRecordContext, useResourceContext, useTranslate, useUpdate } from 'react-admin';
import { Switch } from '@mui/material';

/** The active/inactive switch of a list row (registry `statusToggle`), saved at once. */
export function StatusToggle() {
  const record = useRecordContext<{ id: number; status: 'active' | 'inactive' }>();
  const resource = useResourceContext()!;
  const translate = useTranslate();
  const notify = useNotify();
  const { canAccess } = useCanAccess({ resource, action: 'edit' });
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
        update(resource, { id: record.id, data: { status: active ? 'inactive' : 'active' }, previousData: record }, { mutationMode: 'pessimistic', onError: (e) => notify((e as Error).message, { type: 'error' }) })
      }
    />
  );
}
