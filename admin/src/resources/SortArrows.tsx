import { useDataProvider, useListContext, useNotify, useRecordContext, useRefresh, useTranslate, type RaRecord } from 'react-admin';
import { IconButton, Stack } from '@mui/material';
import UpIcon from '@mui/icons-material/KeyboardArrowUp';
import DownIcon from '@mui/icons-material/KeyboardArrowDown';
import { useState } from 'react';

type Sorted = RaRecord & { sort_order: number; h_id?: string };

/**
 * Up/down arrows that move a row within the list sorted by sort_order: the page is renumbered in
 * its new order and only the rows whose position changed are saved. Keyboard and screen-reader
 * friendly, unlike drag and drop, and it works on a phone.
 */
export function SortArrows({ resource, disabled }: { resource: string; disabled?: boolean }) {
  const record = useRecordContext<Sorted>();
  const { data = [], page = 1, perPage = 25, sort } = useListContext<Sorted>();
  const dataProvider = useDataProvider();
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
    const changes = order
      .map((r, i) => ({ r, sort_order: descending ? base + order.length - 1 - i : base + i }))
      .filter(({ r, sort_order }) => r.sort_order !== sort_order);
    setBusy(true);
    try {
      // One after another: each is a small write, and the list stays consistent if one fails.
      for (const { r, sort_order } of changes) await dataProvider.update(resource, { id: r.id, data: { sort_order }, previousData: r });
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
      <IconButton size="small" aria-label={translate('resources_common.move_up', { name: String(record.name ?? record.title ?? record.id) })} disabled={off || index <= 0} onClick={() => move(-1)}>
        <UpIcon fontSize="small" />
      </IconButton>
      <IconButton size="small" aria-label={translate('resources_common.move_down', { name: String(record.name ?? record.title ?? record.id) })} disabled={off || index < 0 || index >= data.length - 1} onClick={() => move(1)}>
        <DownIcon fontSize="small" />
      </IconButton>
    </Stack>
  );
}
