import { useListContext, useNotify, useRecordContext, useRefresh, useTranslate, type RaRecord } from 'react-admin';
import { IconButton, Stack } from '@mui/material';
import UpIcon from '@mui/icons-material/KeyboardArrowUp';
import DownIcon from '@mui/icons-material/KeyboardArrowDown';
import { useState } from 'react';
import { useConsoleDataProvider } from '../providers/dataProvider';

type Sorted = RaRecord & { sort_order: number; h_id?: string };

/**
 * Up/down arrows that move a row within the list sorted by sort_order: the page is renumbered in
 * its new order and saved in one call (POST /{resource}/reorder), which writes only the rows
 * whose position changed. Keyboard and screen-reader
 * friendly, unlike drag and drop, and it works on a phone.
 */
export function SortArrows({ resource, disabled }: { resource: string; disabled?: boolean }) {
  const record = useRecordContext<Sorted>();
  const { data = [], page = 1, perPage = 25, sort } = useListContext<Sorted>();
  const dataProvider = useConsoleDataProvider();
  const refresh = useRefresh();
  const notify = useNotify();
  const translate = useTranslate();
  const [busy, setBusy] = useState(false);
  if (!record) return null;
  const sortedBySortOrder = sort?.field === 'sort_order';
  const index = data.findIndex((r) => r.id === record.id);
  const move = async (delta: -1 | 1) => {
    const order = [...data];
    const [item] = order.splice(index, 1);
    order.splice(index + delta, 0, item);
    const descending = String(sort?.order).toUpperCase() === 'DESC';
    const base = (page - 1) * perPage;
    // The server numbers the rows from `start` in the order sent (lowest sort_order first).
    const ascending = descending ? [...order].reverse() : order;
    const changed = ascending.some((r, i) => r.sort_order !== base + i);
    if (!changed) return;
    setBusy(true);
    try {
      // One call, one transaction: the whole page's new order is saved at once or not at all.
      await dataProvider.reorder(resource, { ids: ascending.map((r) => r.h_id ?? r.id), start: base });
      refresh();
    } catch (e) {
      notify((e as Error).message, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  const off = disabled || busy || !sortedBySortOrder;
  return (
    <Stack direction="row" onClick={(e) => e.stopPropagation()}>
      <IconButton
        size="small"
        aria-label={translate('resources_common.move_up', { name: String(record.name ?? record.title ?? record.id) })}
        disabled={off || index <= 0}
        onClick={() => move(-1)}
      >
        <UpIcon fontSize="small" />
      </IconButton>
      <IconButton
        size="small"
        aria-label={translate('resources_common.move_down', { name: String(record.name ?? record.title ?? record.id) })}
        disabled={off || index < 0 || index >= data.length - 1}
        onClick={() => move(1)}
      >
        <DownIcon fontSize="small" />
      </IconButton>
    </Stack>
  );
}
