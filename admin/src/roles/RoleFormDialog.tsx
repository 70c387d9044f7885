import { useMemo } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { CreateBase, EditBase, Form, TextInput, useDataProvider, useInput, useNotify, useSaveContext, useTranslate } from 'react-admin';
import { Alert, Box, Checkbox, Dialog, DialogActions, DialogContent, DialogTitle, FormControlLabel, Grid, Paper, Stack, Typography } from '@mui/material';
import { roleSchema, updateRoleSchema } from '@app/contracts';
import type { ConsoleDataProvider } from '../providers/dataProvider';
import { schemaResolver, typedText } from '../common/schemaResolver';
import { SaveCancelButtons } from '../common/FormParts';
import { useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';
import { groupPermissions, permissionLabel, type RoleRecord } from './types';
import { TwoFactorRoleSwitch } from './TwoFactorRoleSwitch';

interface RoleFormValues {
  name: string;
  guard_name: string;
  description: string;
  permissions: string[];
}

const EMPTY: RoleFormValues = { name: '', guard_name: 'web', description: '', permissions: [] };
const createResolver = schemaResolver<RoleFormValues>(roleSchema, (v) => typedText(v, EMPTY));
const updateResolver = schemaResolver<RoleFormValues>(updateRoleSchema, (v) => typedText(v, EMPTY));

const valuesOf = (record: RoleRecord | null): RoleFormValues => ({
  name: record?.name ?? '',
  guard_name: 'web',
  description: record?.description ?? '',
  permissions: record?.permissions?.map((p) => p.name) ?? [],
});

/**
 * The centred role modal 'New Role' / 'Edit Role' (docs/product.md section 2), on react-admin's
 * CreateBase / EditBase and Form with the shared zod schema: the API's 422 field errors land on
 * their fields through react-admin's server-side validation. A protected role shows the system
 * warning with its fields disabled; its permissions can still be assigned (the data provider
 * sends a permissions-only change to assign-permissions). The permission list comes from the
 * server, grouped by area, with select-all per group.
 */
export function RoleFormDialog({ open, record, onClose }: { open: boolean; record: RoleRecord | null; onClose: () => void }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const held = useUserPermissions();
  const canAssign = hasPermission(held, 'assign permissions');
  const isEdit = !!record;
  const onSuccess = async () => {
    notify(isEdit ? 'roles.updated' : 'roles.created', { type: 'success' });
    await queryClient.invalidateQueries({ queryKey: ['users'] });
    onClose();
  };
  // What is sent: only what this user may change (a protected role keeps its name).
  const transform = (values: RoleFormValues) => {
    // react-admin's inputs turn an emptied field into null: the API gets the text typed ('').
    const data = typedText(values, EMPTY);
    const out: Record<string, unknown> = record?.protected ? {} : { name: data.name, guard_name: 'web', description: data.description };
    if (canAssign || !isEdit) out.permissions = data.permissions;
    return out;
  };
  // The form edits permission names; the record carries them as objects.
  const form = (
    <Form
      resolver={(isEdit ? updateResolver : createResolver) as never}
      defaultValues={valuesOf(record)}
      record={record ? { ...record, ...valuesOf(record) } : undefined}
      noValidate
    >
      <RoleFormBody record={record} canAssign={canAssign} onClose={onClose} />
    </Form>
  );
  return (
    <Dialog open={open} onClose={onClose} maxWidth="md" fullWidth aria-labelledby="role-form-title">
      {open && !isEdit && (
        <CreateBase resource="roles" redirect={false} transform={transform} mutationOptions={{ onSuccess }}>
          {form}
        </CreateBase>
      )}
      {open && isEdit && (
        <EditBase resource="roles" id={record.id} redirect={false} mutationMode="pessimistic" transform={transform} mutationOptions={{ onSuccess }}>
          {form}
        </EditBase>
      )}
    </Dialog>
  );
}

function RoleFormBody({ record, canAssign, onClose }: { record: RoleRecord | null; canAssign: boolean; onClose: () => void }) {
  const translate = useTranslate();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const { saving } = useSaveContext();
  const isEdit = !!record;
  const isProtected = !!record?.protected;
  const available = useQuery({
    queryKey: ['roles', 'permissions', 'available'],
    queryFn: () => dataProvider.getAvailablePermissions().then((r) => r.data),
    staleTime: 5 * 60 * 1000,
  });
  const groups = useMemo(() => groupPermissions(available.data ?? []), [available.data]);
  const pending = !!saving;
  return (
    <>
      <DialogTitle id="role-form-title">{translate(isEdit ? 'roles.edit_title' : 'roles.new_title')}</DialogTitle>
      <DialogContent dividers>
        {isProtected && (
          <Alert severity="warning" sx={{ mb: 2 }}>
            {translate('roles.protected_warning')}
          </Alert>
        )}
        <Grid container spacing={2}>
          {/* The guard ('web') is the API's business, not the user's: sent, never shown. */}
          <Grid size={12}>
            <TextInput
              source="name"
              label={translate('roles.fields.name')}
              required
              disabled={isProtected}
              autoFocus={!isProtected}
              helperText={false}
              margin="none"
            />
          </Grid>
          <Grid size={12}>
            <TextInput
              source="description"
              label={translate('roles.fields.description')}
              multiline
              minRows={2}
              disabled={isProtected}
              helperText={false}
              margin="none"
            />
          </Grid>
          {record && (
            <Grid size={12}>
              <TwoFactorRoleSwitch role={record} withLabel />
              <Typography variant="body2" color="text.secondary">
                {translate('roles.two_factor_help')}
              </Typography>
            </Grid>
          )}
        </Grid>
        <PermissionsInput groups={groups} disabled={!canAssign && isEdit} />
        {available.isError && <Alert severity="error">{(available.error as Error).message}</Alert>}
        <Box sx={{ height: 4 }} />
      </DialogContent>
      <DialogActions sx={{ px: 3, py: 2 }}>
        <SaveCancelButtons isEdit={isEdit} pending={pending} onCancel={onClose} />
      </DialogActions>
    </>
  );
}

/**
 * The role's permissions (react-admin input 'permissions': their names), grouped by area with a
 * select-all per group; the schema's or the API's refusal of them shows above the groups.
 */
function PermissionsInput({ groups, disabled }: { groups: ReturnType<typeof groupPermissions>; disabled: boolean }) {
  const translate = useTranslate();
  const { field, fieldState } = useInput<string[]>({ source: 'permissions' });
  const selected = useMemo(() => new Set<string>(field.value ?? []), [field.value]);
  const setSelected = (change: (s: Set<string>) => void) => {
    const next = new Set(selected);
    change(next);
    field.onChange([...next]);
  };
  const message = fieldState.error?.message;
  const error = message ? translate(message, { _: message }) : undefined;
  return (
    <>
      <Typography variant="subtitle1" sx={{ fontWeight: 600, mt: 3, mb: 1 }}>
        {translate('roles.fields.permissions')} ({selected.size})
      </Typography>
      {error && <Alert severity="error">{error}</Alert>}
      <Grid container spacing={2}>
        {groups.map(([group, perms]) => {
          const names = perms.map((p) => p.name);
          const count = names.filter((n) => selected.has(n)).length;
          const groupLabel = translate(`roles.groups.${group.replace(/ /g, '_')}`, { _: group });
          return (
            <Grid key={group} size={{ xs: 12, sm: 6, md: 4 }}>
              <Paper variant="outlined" sx={{ p: 1.5, height: '100%' }}>
                <FormControlLabel
                  label={<Typography sx={{ fontWeight: 600, textTransform: 'capitalize' }}>{groupLabel}</Typography>}
                  control={
                    <Checkbox
                      checked={count === names.length && names.length > 0}
                      indeterminate={count > 0 && count < names.length}
                      disabled={disabled}
                      onChange={(e) => setSelected((s) => names.forEach((x) => (e.target.checked ? s.add(x) : s.delete(x))))}
                      slotProps={{ input: { 'aria-label': translate('roles.select_all_group', { group: groupLabel }) } }}
                    />
                  }
                />
                <Stack sx={{ pl: 2 }}>
                  {perms.map((p) => (
                    <FormControlLabel
                      key={p.name}
                      label={<Typography variant="body2">{permissionLabel(translate, p.name)}</Typography>}
                      control={
                        <Checkbox
                          size="small"
                          checked={selected.has(p.name)}
                          disabled={disabled}
                          onChange={(e) => setSelected((s) => void (e.target.checked ? s.add(p.name) : s.delete(p.name)))}
                        />
                      }
                    />
                  ))}
                </Stack>
              </Paper>
            </Grid>
          );
        })}
      </Grid>
    </>
  );
}
