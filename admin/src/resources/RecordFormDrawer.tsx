import type { ReactNode } from 'react';
import { CreateBase, EditBase, SaveButton, SimpleForm, Toolbar, useSaveContext, useTranslate, type RaRecord } from 'react-admin';
import { useDoneToast } from '../common/DoneToast';
import { Box, Button, Drawer, IconButton, Stack, Typography } from '@mui/material';
import CloseIcon from '@mui/icons-material/Close';
import type { z } from 'zod';
import { sharedResolver } from '../common/zodForm';
import type { useRecordRoute } from '../common/useRecordRoute';

const WIDTH = 800;

/**
 * The slide-over form of a registry resource, on react-admin's CreateBase / EditBase: the shared
 * zod schema validates in the browser, and the API's 422 field errors land on their inputs by
 * react-admin's server-side validation, with no per-form code. Opened by the record's URL.
 */
export function RecordFormDrawer({
  resource,
  route,
  schemas,
  titles,
  transform,
  defaultValues,
  stateAfterCreate,
  stateAfterUpdate,
  beforeSave,
  onSaved,
  children,
}: {
  resource: string;
  route: ReturnType<typeof useRecordRoute<RaRecord>>;
  schemas: { create: z.ZodType; update: z.ZodType };
  titles: { create: string; edit: string };
  transform?: (data: Record<string, unknown>) => Record<string, unknown>;
  /** Values a new record starts with (e.g. the operator a new category belongs to). */
  defaultValues?: Record<string, unknown>;
  /**
   * The location state the list opens with once a record is created (a screen's follow-up step);
   * undefined: none. State, not the screen's own: the layout mounts the page anew at each path.
   */
  stateAfterCreate?: (record: RaRecord) => Record<string, unknown> | undefined;
  /** The same once a record is updated (what the save did beyond itself, said above the list). */
  stateAfterUpdate?: (record: RaRecord) => Record<string, unknown> | undefined;
  /** Asked once the form is valid, before anything is sent (false: nothing is saved, the form stays open). */
  beforeSave?: (data: Record<string, unknown>, record: RaRecord | undefined) => Promise<boolean>;
  /** The saved record as the API answered it, after the toast (a screen says what the save did beyond it). */
  onSaved?: (what: 'created' | 'updated', record: RaRecord) => void;
  children: ReactNode;
}) {
  const translate = useTranslate();
  const toast = useDoneToast();
  // The toast names what was saved ("Banner “Weekend offer” created"), not "Element created".
  const done = (what: 'created' | 'updated') => (data: RaRecord) => {
    toast(what, resource, data);
    onSaved?.(what, data);
    const state = what === 'created' ? stateAfterCreate?.(data) : stateAfterUpdate?.(data);
    if (state) route.closeWith(state);
    else route.close();
  };
  const form = (schema: z.ZodType, isEdit: boolean) => (
    <GuardedForm
      resolver={sharedResolver(schema)}
      defaultValues={isEdit ? undefined : defaultValues}
      toolbar={<FormToolbar isEdit={isEdit} onCancel={route.close} />}
      beforeSave={beforeSave && ((data) => beforeSave(data, isEdit ? (route.record ?? undefined) : undefined))}
    >
      {children}
    </GuardedForm>
  );
  const title = route.mode === 'create' ? titles.create : titles.edit;
  return (
    <Drawer
      anchor="right"
      open={route.open}
      onClose={route.close}
      slotProps={{ paper: { role: 'dialog', 'aria-labelledby': `${resource}-form-title`, sx: { width: { xs: '100%', md: WIDTH } } } as object }}
      transitionDuration={{ exit: 300 }}
    >
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', px: 3, pt: 2 }}>
        <Typography variant="h6" component="h2" id={`${resource}-form-title`}>
          {translate(title)}
        </Typography>
        <IconButton aria-label={translate('common.close')} onClick={route.close}>
          <CloseIcon />
        </IconButton>
      </Stack>
      <Box>
        {route.mode === 'create' && (
          <CreateBase resource={resource} redirect={false} transform={transform} mutationOptions={{ onSuccess: done('created') }}>
            {form(schemas.create, false)}
          </CreateBase>
        )}
        {route.record && route.mode !== 'create' && (
          <EditBase
            resource={resource}
            id={route.record.id}
            redirect={false}
            mutationMode="pessimistic"
            transform={transform}
            mutationOptions={{ onSuccess: done('updated') }}
          >
            {form(schemas.update, true)}
          </EditBase>
        )}
      </Box>
    </Drawer>
  );
}

/** SimpleForm whose save waits for `beforeSave` when there is one (the server's field errors still land on their inputs). */
function GuardedForm({
  beforeSave,
  ...props
}: Omit<Parameters<typeof SimpleForm>[0], 'onSubmit'> & { beforeSave?: (data: Record<string, unknown>) => Promise<boolean> }) {
  const { save } = useSaveContext();
  const onSubmit = beforeSave && save ? async (data: Record<string, unknown>) => ((await beforeSave(data)) ? save(data) : undefined) : undefined;
  return <SimpleForm {...props} onSubmit={onSubmit} />;
}

function FormToolbar({ isEdit, onCancel }: { isEdit: boolean; onCancel: () => void }) {
  const translate = useTranslate();
  return (
    // Sticky at the drawer's bottom: Save stays in view however long the form and however short the screen.
    <Toolbar
      sx={{ gap: 1, justifyContent: 'flex-end', position: 'sticky', bottom: 0, zIndex: 2, bgcolor: 'background.paper', borderTop: 1, borderColor: 'divider' }}
    >
      <Button onClick={onCancel}>{translate('common.cancel')}</Button>
      <SaveButton label={isEdit ? 'common.update' : 'common.save'} icon={<></>} />
    </Toolbar>
  );
}
