import { useState } from 'react';
import { useNotify, useRefresh, useTranslate } from 'react-admin';
import { useQueryClient } from '@tanstack/react-query';
import { FormControlLabel, Switch } from '@mui/material';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';
import { serverMessage } from '../providers/errors';
import type { RoleRecord } from './types';

/**
 * "Require two-factor sign-in" of a role, saved at once (PUT /roles/{id}/two-factor), protected
 * roles too. Holders of 'require two-factor' change it; others see it.
 */
export function TwoFactorRoleSwitch({ role, withLabel = false }: { role: RoleRecord; withLabel?: boolean }) {
  const translate = useTranslate();
  const notify = useNotify();
  const refresh = useRefresh();
  const queryClient = useQueryClient();
  const dataProvider = useConsoleDataProvider();
  const permissions = useUserPermissions();
  const [pending, setPending] = useState(false);
  const [value, setValue] = useState(Boolean(role.requires_two_factor));
  const canChange = hasPermission(permissions, 'require two-factor');
  const change = async (required: boolean) => {
    setPending(true);
    try {
      const res = await dataProvider.setRoleTwoFactor({ id: role.id, required });
      setValue(Boolean((res.data as RoleRecord).requires_two_factor));
      notify(res.message ?? 'roles.updated', { type: 'success' });
      // The signed-in user may hold the role: its own record says whether it must enrol now.
      await queryClient.invalidateQueries({ queryKey: ['auth'] });
      refresh();
    } catch (err) {
      notify(serverMessage(err), { type: 'error' });
    } finally {
      setPending(false);
    }
  };
  const control = (
    <Switch
      checked={value}
      disabled={!canChange || pending}
      onClick={(e) => e.stopPropagation()}
      onChange={(_e, checked) => change(checked)}
      slotProps={{ input: { 'aria-label': translate('roles.two_factor_label', { name: role.name }) } }}
    />
  );
  if (!withLabel) return control;
  return <FormControlLabel control={control} label={translate('roles.fields.requires_two_factor')} />;
}
