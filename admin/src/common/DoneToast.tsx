import {
  BulkDeleteButton,
  DeleteButton,
  useListContext,
  useNotify,
  useRecordContext,
  useResourceContext,
  useTranslate,
  useUnselectAll,
  type RaRecord,
} from 'react-admin';
import { resourceDef } from '../resources/registry';

export type Done = 'created' | 'updated' | 'deleted' | 'activated' | 'deactivated' | 'restored' | 'force_deleted';

/**
 * Toasts that say what was done to what ("Banner “Weekend offer” moved to the trash") instead of
 * react-admin's "Element deleted": the record's name comes from the registry's
 * recordRepresentation, its kind from toasts.things.{resource}.
 */
export function useDoneToast() {
  const notify = useNotify();
  const translate = useTranslate();
  return (done: Done, resource: string, record?: Partial<RaRecord> | null) => {
    const def = resourceDef(resource);
    const field = def?.recordRepresentation;
    const raw = record && field ? (record as Record<string, unknown>)[field] : undefined;
    const name = raw === undefined || raw === null ? '' : String(raw);
    const thing = translate(`toasts.things.${resource}`, { _: def ? translate(def.labelKey) : resource });
    notify(name ? `toasts.${done}` : `toasts.${done}_unnamed`, { type: 'success', messageArgs: { thing, name } });
  };
}

/** "Banners: 3 moved to the trash" (or restored, or deleted for good). */
export function useDoneManyToast() {
  const notify = useNotify();
  const translate = useTranslate();
  return (resource: string, count: number, done: 'deleted' | 'restored' | 'force_deleted' = 'deleted') => {
    const def = resourceDef(resource);
    notify(`toasts.${done}_many`, { type: 'success', messageArgs: { things: def ? translate(def.labelKey) : resource, smart_count: count } });
  };
}

/** A row's delete (to the trash), pessimistic, naming the record in its toast. */
export function TrashButton() {
  const resource = useResourceContext()!;
  const record = useRecordContext();
  const toast = useDoneToast();
  return <DeleteButton mutationMode="pessimistic" redirect={false} mutationOptions={{ onSuccess: () => toast('deleted', resource, record) }} />;
}

/** The bulk delete (to the trash), saying how many of what went. */
export function TrashBulkButton() {
  const resource = useResourceContext()!;
  const { selectedIds } = useListContext();
  const unselectAll = useUnselectAll(resource);
  const toast = useDoneManyToast();
  const count = selectedIds.length;
  return (
    <BulkDeleteButton
      mutationMode="pessimistic"
      mutationOptions={{
        onSuccess: () => {
          toast(resource, count);
          unselectAll();
        },
      }}
    />
  );
}
