import { useFormContext, useFormState } from 'react-hook-form';
import { useGetList, useTranslate } from 'react-admin';
import { Alert, Box, Checkbox, FormControlLabel, FormHelperText, Stack, TextField, Typography } from '@mui/material';
import { hasPermission } from '../permissions/permissions';
import { useUserPermissions } from '../auth/identity';

/** The form value: a company method's id → this dealer's own number for it ('' until typed). */
export type StarterPaymentMethodsValue = Record<string, string>;

interface CompanyMethod {
  id: number;
  h_id: string;
  name: string;
  type: string;
}

/**
 * A new dealer's payment methods, started from the company's: a "Cost + Profit" shop's customers
 * pay the shop, so each ticked method asks for the shop's own number (the company's is never
 * copied). A "Profit Only" shop's customers pay the company: nothing to set up.
 */
export function StarterPaymentMethods({ pricingModel }: { pricingModel: 'cost' | 'profit' }) {
  const translate = useTranslate();
  const permissions = useUserPermissions();
  const canRead = hasPermission(permissions, 'view payment methods');
  const { data: methods = [] } = useGetList<CompanyMethod>(
    'payment-methods',
    { pagination: { page: 1, perPage: 50 }, sort: { field: 'sort_order', order: 'ASC' }, filter: { dealer_id: 'global', status: 'active' } },
    { enabled: canRead && pricingModel === 'cost' },
  );
  const { watch, setValue } = useFormContext<{ starter_payment_methods: StarterPaymentMethodsValue }>();
  const { errors } = useFormState();
  const chosen = watch('starter_payment_methods') ?? {};
  const errorOf = (key?: string): string | undefined => {
    const group = errors.starter_payment_methods as (Record<string, { message?: unknown }> & { message?: unknown }) | undefined;
    const m = key ? group?.[key]?.message : group?.message;
    return m ? translate(String(m), { _: String(m) }) : undefined;
  };
  const update = (next: StarterPaymentMethodsValue) => setValue('starter_payment_methods', next, { shouldDirty: true });

  if (!canRead) return null;
  return (
    <Box component="fieldset" sx={{ border: 0, p: 0, m: 0 }}>
      <Typography component="legend" variant="subtitle2" sx={{ mb: 0.5 }}>
        {translate('users.starter_payment_methods')}
      </Typography>
      {pricingModel === 'profit' ? (
        <Alert severity="info">{translate('users.starter_payment_methods_profit')}</Alert>
      ) : (
        <>
          <FormHelperText sx={{ mt: 0, mb: 1 }}>{translate('users.starter_payment_methods_help')}</FormHelperText>
          {errorOf() && <FormHelperText error>{errorOf()}</FormHelperText>}
          <Stack spacing={1}>
            {methods.map((m) => {
              const on = m.h_id in chosen;
              const error = errorOf(m.h_id);
              return (
                <Stack key={m.h_id} direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'flex-start' } }}>
                  <FormControlLabel
                    sx={{ minWidth: 200, mt: { sm: 1 } }}
                    control={
                      <Checkbox
                        checked={on}
                        onChange={(e) => {
                          const next = { ...chosen };
                          if (e.target.checked) next[m.h_id] = '';
                          else delete next[m.h_id];
                          update(next);
                        }}
                      />
                    }
                    label={m.name}
                  />
                  {on && (
                    <TextField
                      size="small"
                      fullWidth
                      type={m.type === 'bank' ? 'text' : 'tel'}
                      label={translate('users.starter_account_number', { method: m.name })}
                      value={chosen[m.h_id] ?? ''}
                      onChange={(e) => update({ ...chosen, [m.h_id]: e.target.value })}
                      required={m.type !== 'cash'}
                      error={!!error}
                      helperText={error}
                      slotProps={{ htmlInput: { dir: 'ltr', 'data-testid': `starter-account-${m.h_id}` } }}
                    />
                  )}
                </Stack>
              );
            })}
          </Stack>
        </>
      )}
    </Box>
  );
}
