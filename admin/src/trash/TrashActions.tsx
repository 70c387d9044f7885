import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Confirm, useDataProvider, useListContext, useNotify, useRecordContext, useTranslate, type Identifier } from 'react-admin';
import { Button, IconButton, Tooltip } from '@mui/material';
import RestoreIcon from '@mui/icons-material/RestoreFromTrash';
import DeleteForeverIcon from '@mui/icons-material/DeleteForever';
import type { ConsoleDataProvider } from '../providers/dataProvider';
import { useDoneManyToast, useDoneToast } from '../common/DoneToast';

type Action = 'restore' | 'force_delete';

/** Restore / force delete of one or many trashed records, each behind a confirmation. */
function useTrashMutation(resource: string) {
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const toast = useDoneToast();
  const toastMany = useDoneManyToast();
  return useMutation({
    mutationFn: async ({ action, ids, record }: { action: Action; ids: Identifier[]; record?: { id: Identifier; h_id?: string } }) => {
      if (record) {
        if (action === 'restore') await dataProvider.restore(resource, { id: record.id, previousData: record });
        else await dataProvider.forceDelete(resource, { id: record.id, previousData: record });
      } else if (action === 'restore') await dataProvider.restoreMany(resource, { ids });
      else await dataProvider.forceDeleteMany(resource, { ids });
      return { action, count: ids.length, record };
    },
    // Said by name: "User “Ali” restored from the trash", "Roles: 3 deleted for good".
    onSuccess: ({ action, count, record }) => {
      const done = action === 'restore' ? 'restored' : 'force_deleted';
      if (record) toast(done, resource, record);
      else toastMany(resource, count, done);
      void queryClient.invalidateQueries({ queryKey: [resource] });
    },
    onError: (e: Error) => notify(e.message, { type: 'error' }),
  });
}

export function TrashRowActions({ resource }: { resource: string }) {
  const translate = useTranslate();
  const record = useRecordContext<{ id: Identifier; h_id?: string; name?: string; title?: string }>();
  const [confirm, setConfirm] = useState<Action | null>(null);
  const mutation = useTrashMutation(resource);
  if (!record) return null;
  return (
    <span onClick={(e) => e.stopPropagation()}>
      <Tooltip title={translate('trash.restore')}>
        <IconButton aria-label={`${translate('trash.restore')} ${record.name ?? record.title ?? ''}`} color="primary" onClick={() => setConfirm('restore')}>
          <RestoreIcon />
        </IconButton>
      </Tooltip>
      <Tooltip title={translate('trash.force_delete')}>
        <IconButton
          aria-label={`${translate('trash.force_delete')} ${record.name ?? record.title ?? ''}`}
          color="error"
          onClick={() => setConfirm('force_delete')}
        >
          <DeleteForeverIcon />
        </IconButton>
      </Tooltip>
      <Confirm
        isOpen={!!confirm}
        loading={mutation.isPending}
        title={confirm === 'restore' ? 'trash.confirm_restore_title' : 'trash.confirm_delete_title'}
        content={confirm === 'restore' ? 'trash.confirm_restore' : 'trash.confirm_delete'}
        translateOptions={{ name: record.name ?? record.title ?? String(record.id), smart_count: 1 }}
        onConfirm={() => mutation.mutate({ action: confirm!, ids: [record.id], record }, { onSettled: () => setConfirm(null) })}
        onClose={() => setConfirm(null)}
      />
    </span>
  );
}

export function TrashBulkActions({ resource }: { resource: string }) {
  const translate = useTranslate();
  const { selectedIds, onUnselectItems } = useListContext();
  const [confirm, setConfirm] = useState<Action | null>(null);
  const mutation = useTrashMutation(resource);
  return (
    <>
      <Button size="small" startIcon={<RestoreIcon />} onClick={() => setConfirm('restore')}>
        {translate('trash.restore')}
      </Button>
      <Button size="small" color="error" startIcon={<DeleteForeverIcon />} onClick={() => setConfirm('force_delete')}>
        {translate('trash.force_delete')}
      </Button>
      <Confirm
        isOpen={!!confirm}
        loading={mutation.isPending}
        title={confirm === 'restore' ? 'trash.confirm_restore_title' : 'trash.confirm_delete_title'}
        content={confirm === 'restore' ? 'trash.confirm_bulk_restore' : 'trash.confirm_bulk_delete'}
        translateOptions={{ smart_count: selectedIds.length }}
        onConfirm={() =>
          mutation.mutate(
            { action: confirm!, ids: selectedIds },
            {
              onSettled: () => setConfirm(null),
              onSuccess: () => onUnselectItems(),
            },
          )
        }
        onClose={() => setConfirm(null)}
      />
    </>
  );
}
