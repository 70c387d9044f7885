import { Form, SaveButton, TextInput, useCanAccess, useTranslate } from 'react-admin';
import { Alert, Card, CardContent, InputAdornment, Stack, Typography } from '@mui/material';
import { moneyLimitsSchema, type MoneyLimitsResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { FullPageLoader } from '../common/FullPageLoader';
import { sharedResolver } from '../common/zodForm';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { serverMessage } from '../providers/errors';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { useSettingsGroup } from './useSettingsForm';

/**
 * /settings/money: the ceilings on money, the most one operation (a top-up, an adjustment, a
 * top-up request) may move and the highest balance a wallet may hold. Reading needs 'view company
 * settings', saving 'update company settings'; the API's messages show whole on their fields.
 */
export default function MoneySettingsPage() {
  const translate = useTranslate();
  const company = useCompanyFormat();
  const { data, isPending, error, save } = useSettingsGroup<MoneyLimitsResponse>('money');
  const { canAccess: canUpdate } = useCanAccess({ resource: 'settings', action: 'update company settings' });
  const crumbs = <Breadcrumbs items={[{ label: 'menu.settings', to: '/settings' }, { label: 'menu.settings_money' }]} />;
  if (error && !data) {
    return (
      <>
        {crumbs}
        <PageTitle title={translate('menu.settings_money')} />
        <Alert severity="error">{serverMessage(error)}</Alert>
      </>
    );
  }
  if (isPending || !data) return <FullPageLoader />;
  const currency = data.currency ?? company.currency;
  const adornment = { input: { endAdornment: <InputAdornment position="end">{currency}</InputAdornment> }, htmlInput: { inputMode: 'decimal' as const } };
  return (
    <>
      {crumbs}
      <PageTitle title={translate('menu.settings_money')} />
      <Card>
        <CardContent>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 640 }}>
            {translate('settings.money.help')}
            {data.max_allowed ? ` ${translate('settings.money.max_allowed', { max: `${data.max_allowed} ${currency}` })}` : ''}
          </Typography>
          <Form
            record={{ max_operation: String(data.max_operation ?? ''), max_balance: String(data.max_balance ?? '') }}
            resolver={sharedResolver(moneyLimitsSchema)}
            onSubmit={(v: Record<string, unknown>) => save({ max_operation: v.max_operation, max_balance: v.max_balance })}
            disabled={!canUpdate}
          >
            <Stack sx={{ maxWidth: 640 }}>
              <TextInput
                source="max_operation"
                label="settings.money.max_operation"
                helperText="settings.money.max_operation_help"
                fullWidth
                slotProps={adornment}
              />
              <TextInput source="max_balance" label="settings.money.max_balance" helperText="settings.money.max_balance_help" fullWidth slotProps={adornment} />
              {canUpdate ? (
                <SaveButton label="common.save" sx={{ alignSelf: 'flex-start' }} />
              ) : (
                <Typography variant="body2" color="text.secondary">
                  {translate('settings.money.read_only')}
                </Typography>
              )}
            </Stack>
          </Form>
        </CardContent>
      </Card>
    </>
  );
}
