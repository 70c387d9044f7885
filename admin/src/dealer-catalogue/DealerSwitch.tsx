import { useCanAccess, useNotify, useRecordContext, useTranslate, useUpdate } from 'react-admin';
import { Switch } from '@mui/material';

/** The dealer's on/off switch of a catalogue row, saved at once (for the dealer in `dealerId`). */
export function DealerSwitch({ resource, dealerData }: { resource: string; dealerData: Record<string, unknown> }) {
  const record = useRecordContext<{ id: number; h_id: string; name: string; enabled: boolean }>();
  const translate = useTranslate();
  const notify = useNotify();
  const { canAccess } = useCanAccess({ resource, action: 'edit' });
  const [update, { isPending }] = useUpdate();
  if (!record) return null;
  return (
    <Switch
      checked={record.enabled}
      disabled={!canAccess || isPending}
      slotProps={{ input: { 'aria-label': translate(record.enabled ? 'dealer_catalogue.turn_off' : 'dealer_catalogue.turn_on', { name: record.name }) } }}
      onClick={(e) => e.stopPropagation()}
      onChange={() =>
        update(
          resource,
          { id: record.id, data: { ...dealerData, status: record.enabled ? 'inactive' : 'active' }, previousData: record },
          { mutationMode: 'pessimistic', onError: (e) => notify((e as Error).message, { type: 'error' }) },
        )
      }
    />
  );
}
