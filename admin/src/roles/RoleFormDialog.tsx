import { useEffect, useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useDataProvider, useNotify, useTranslate } from 'react-admin';
import { Alert, Box, Checkbox, Dialog, DialogActions, DialogContent, DialogTitle, FormControlLabel, Grid, Paper, Stack, TextField, Typography } from '@mui/material';
import { roleSchema } from '@app/contracts';
import type { ConsoleDataProvider } from '../providers/dataProvider';
import { muiRegister, sharedResolver } from '../common/zodForm';
import { ErrorBanner, SaveCancelButtons } from '../common/FormParts';
import { splitServerErrors } from '../users/serverErrors';
import { useSession } from '../providers/useSession';
import { hasPermission } from '../permissions/permissions';
import { groupPermissions, type RoleRecord } from './types';

interface RoleFormValues {
  name: string;
  guard_name: string;
  description: string;
}

/**
 * The centred role modal 'New Role' / 'Edit Role' (docs/product.md section 2). A protected role shows
 * the system warning with its fields disabled; its permissions can still be assigned. The
 * permission list comes from the server, grouped by area, with select-all per group.
 */
export function RoleFormDialog({ open, record, onClose }: { open: boolean; record: RoleRecord | null; onClose: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const { permissions: held } = useSession();
  const isEdit = !!record;
  const isProtected = !!record?.protected;
  const canAssign = hasPermission(held, 'assign permissions');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [banner, setBanner] = useState<string | undefined>();
  const available = useQuery({
    queryKey: ['roles', 'permissions', 'available'],
    queryFn: () => dataProvider.getAvailablePermissions().then((r) => r.data),
    staleTime: 5 * 60 * 1000,
    enabled: open,
  });
  const groups = useMemo(() => groupPermissions(available.data ?? []), [available.data]);
  const { register, handleSubmit, formState, reset, setError } = useForm<RoleFormValues>({
    resolver: sharedResolver(roleSchema),
    defaultValues: { name: '', guard_name: 'web', description: '' },
  });

  useEffect(() => {
    if (!open) return;
    reset({ name: record?.name ?? '', guard_name: 'web', description: record?.description ?? '' });
    setSelected(new Set(record?.permissions?.map((p) => p.name) ?? []));
    setBanner(undefined);
  }, [open, record, reset]);

  const toggle = (name: string, on: boolean) =>
    setSelected((s) => {
      const n = new Set(s);
      if (on) n.add(name);
      else n.delete(name);
      return n;
    });

  const onSubmit = handleSubmit(async (values) => {
    setBanner(undefined);
    const permissions = [...selected];
    try {
      if (!isEdit) {
        await dataProvider.create('roles', { data: { ...values, permissions } });
      } else {
        if (!isProtected) await dataProvider.update('roles', { id: record.id, data: values, previousData: record });
        if (canAssign) await dataProvider.assignPermissions({ id: record.h_id ?? record.id, permissions });
      }
      notify(isEdit ? 'roles.updated' : 'roles.created', { type: 'success' });
      await Promise.all([queryClient.invalidateQueries({ queryKey: ['roles'] }), queryClient.invalidateQueries({ queryKey: ['users'] })]);
      onClose();
    } catch (e) {
      const split = splitServerErrors(e, ['name', 'guard_name', 'description']);
      for (const [f, m] of Object.entries(split.fields)) setError(f as keyof RoleFormValues, { type: 'server', message: m });
      setBanner(split.banner ?? split.logo);
    }
  });
  const err = (n: keyof RoleFormValues) => {
    const m = formState.errors[n]?.message;
    return m ? translate(String(m), { _: String(m) }) : undefined;
  };
  const pending = formState.isSubmitting;

  return (
    <Dialog open={open} onClose={() => !pending && onClose()} maxWidth="md" fullWidth aria-labelledby="role-form-title">
      <form onSubmit={onSubmit} noValidate>
        <DialogTitle id="role-form-title">{translate(isEdit ? 'roles.edit_title' : 'roles.new_title')}</DialogTitle>
        <DialogContent dividers>
          {isProtected && (
            <Alert severity="warning" sx={{ mb: 2 }}>
              {translate('roles.protected_warning')}
            </Alert>
          )}
          <ErrorBanner message={banner} />
          <Grid container spacing={2}>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextField {...muiRegister(register, 'name')} label={translate('roles.fields.name')} required fullWidth disabled={isProtected} error={!!formState.errors.name} helperText={err('name')} autoFocus={!isProtected} />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextField {...muiRegister(register, 'guard_name')} label={translate('roles.fields.guard_name')} required fullWidth disabled slotProps={{ htmlInput: { readOnly: true } }} error={!!formState.errors.guard_name} helperText={err('guard_name')} />
            </Grid>
            <Grid size={12}>
              <TextField {...muiRegister(register, 'description')} label={translate('roles.fields.description')} fullWidth multiline minRows={2} disabled={isProtected} error={!!formState.errors.description} helperText={err('description')} />
            </Grid>
          </Grid>
          <Typography variant="subtitle1" sx={{ fontWeight: 600, mt: 3, mb: 1 }}>
            {translate('roles.fields.permissions')} ({selected.size})
          </Typography>
          {available.isError && <Alert severity="error">{(available.error as Error).message}</Alert>}
          <Grid container spacing={2}>
            {groups.map(([group, perms]) => {
              const names = perms.map((p) => p.name);
              const count = names.filter((n) => selected.has(n)).length;
              return (
                <Grid key={group} size={{ xs: 12, sm: 6, md: 4 }}>
                  <Paper variant="outlined" sx={{ p: 1.5, height: '100%' }}>
                    <FormControlLabel
                      label={<Typography sx={{ fontWeight: 600, textTransform: "capitalize" }}>{translate(`roles.groups.${group.replace(/ /g, '_')}`, { _: group })}</Typography>}
                      control={
                        <Checkbox
                          checked={count === names.length && names.length > 0}
                          indeterminate={count > 0 && count < names.length}
                          disabled={!canAssign && isEdit}
                          onChange={(e) => setSelected((s) => {
                            const n = new Set(s);
                            names.forEach((x) => (e.target.checked ? n.add(x) : n.delete(x)));
                            return n;
                          })}
                          slotProps={{ input: { 'aria-label': translate('roles.select_all_group', { group }) } }}
                        />
                      }
                    />
                    <Stack sx={{ pl: 2 }}>
                      {perms.map((p) => (
                        <FormControlLabel
                          key={p.name}
                          label={<Typography variant="body2">{p.name}</Typography>}
                          control={<Checkbox size="small" checked={selected.has(p.name)} disabled={!canAssign && isEdit} onChange={(e) => toggle(p.name, e.target.checked)} />}
                        />
                      ))}
                    </Stack>
                  </Paper>
                </Grid>
              );
            })}
          </Grid>
          <Box sx={{ height: 4 }} />
        </DialogContent>
        <DialogActions sx={{ px: 3, py: 2 }}>
          <SaveCancelButtons isEdit={isEdit} pending={pending} onCancel={onClose} />
        </DialogActions>
      </form>
    </Dialog>
  );
}
