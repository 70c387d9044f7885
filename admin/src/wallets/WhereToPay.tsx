import { useTranslate } from 'react-admin';
import { useQuery } from '@tanstack/react-query';
import { Alert, Box, Stack, Typography } from '@mui/material';
import type { TopUpPaymentDetails } from '@app/contracts';
import { Ltr, ltr } from '../common/Ltr';
import { useConsoleDataProvider } from '../providers/dataProvider';

/**
 * The top-up request dialog's "Where to pay" (GET /wallet-top-up-requests/payment-details): the
 * company's payment methods with their account numbers and instructions, and its phone. Read
 * when the dialog opens; nothing shown while loading or when the call fails (the form still works).
 */
export function WhereToPay({ enabled }: { enabled: boolean }) {
  const translate = useTranslate();
  const dataProvider = useConsoleDataProvider();
  const { data } = useQuery({
    queryKey: ['wallet-top-up-requests', 'payment-details'],
    enabled,
    queryFn: async () => (await dataProvider.topUpPaymentDetails<TopUpPaymentDetails>()).data,
    retry: false,
    staleTime: 60_000,
  });
  if (!data) return null;
  const phone = data.phone ? <Typography variant="body2">{translate('wallets.where_to_pay_phone', { phone: ltr(data.phone) })}</Typography> : null;
  if (!data.methods.length)
    return (
      <Alert severity="info" icon={false}>
        {translate('wallets.where_to_pay_none')}
        {phone}
      </Alert>
    );
  return (
    <Box component="section" aria-labelledby="where-to-pay-title" sx={{ p: 1.5, borderRadius: 1, border: 1, borderColor: 'divider', bgcolor: 'action.hover' }}>
      <Typography id="where-to-pay-title" variant="subtitle2" component="h3" sx={{ fontWeight: 700 }}>
        {translate('wallets.where_to_pay_title')}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {translate('wallets.where_to_pay_help')}
      </Typography>
      <Stack component="ul" spacing={1} sx={{ listStyle: 'none', p: 0, m: 0 }}>
        {data.methods.map((m, i) => (
          <li key={`${m.name}-${i}`}>
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {m.name}
            </Typography>
            {m.account_number && (
              <Typography variant="body2">
                {translate('wallets.account_number', { number: '' })}
                <Ltr>
                  <Box component="span" sx={{ fontFamily: 'monospace', fontWeight: 600, userSelect: 'all' }}>
                    {m.account_number}
                  </Box>
                </Ltr>
              </Typography>
            )}
            {m.instructions && (
              <Typography variant="body2" color="text.secondary" sx={{ whiteSpace: 'pre-line' }}>
                {m.instructions}
              </Typography>
            )}
          </li>
        ))}
      </Stack>
      {phone && <Box sx={{ mt: 1 }}>{phone}</Box>}
    </Box>
  );
}
