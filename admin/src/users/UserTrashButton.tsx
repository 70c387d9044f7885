import { DeleteButton, useGetList, useGetResourceLabel, usePermissions, useRecordContext, useResourceContext, useTranslate } from 'react-admin';
import { Alert, Box, DialogContentText } from '@mui/material';
import type { WalletResponse } from '@app/contracts';
import { useDoneToast } from '../common/DoneToast';
import type { UserRecord } from './types';

/**
 * A user's delete (to the trash). For a dealer the question says what its wallet holds, read when
 * the question opens: a dealer in the trash sells nothing, and its money stays in the wallet.
 */
export function UserTrashButton() {
  const resource = useResourceContext()!;
  const record = useRecordContext<UserRecord>();
  const toast = useDoneToast();
  if (!record) return null;
  return (
    <DeleteButton
      mutationMode="pessimistic"
      redirect={false}
      confirmContent={record.user_type === 'dealer' ? <DealerDeleteQuestion dealer={record} /> : undefined}
      mutationOptions={{ onSuccess: () => toast('deleted', resource, record) }}
    />
  );
}

/** The question's text for a dealer: the usual one, then its balance when the wallet holds money. */
export function DealerDeleteQuestion({ dealer }: { dealer: UserRecord }) {
  const translate = useTranslate();
  const resourceLabel = useGetResourceLabel();
  const resource = useResourceContext() ?? 'dealers';
  const balance = useDealerBalance(dealer);
  return (
    <Box>
      {/* The usual question, naming the kind of record as react-admin's own does. */}
      <DialogContentText>{translate('ra.message.delete_content', { name: resourceLabel(resource, 1).toLocaleLowerCase(), smart_count: 1 })}</DialogContentText>
      {balance && (
        <Alert severity="warning" sx={{ mt: 2 }} data-testid="dealer-balance-warning">
          {translate('users.delete_dealer_balance', { name: dealer.name, balance: `\u2066${balance}\u2069` })}
        </Alert>
      )}
    </Box>
  );
}

/** "12.50 USD" when the dealer's live wallet holds money; null when it holds none or the caller may not see wallets. */
export function useDealerBalance(dealer: UserRecord): string | null {
  const { permissions } = usePermissions<string[]>();
  const seesWallets = !!permissions?.includes('view wallets');
  // The wallets list searches by the dealer's name or code; the dealer's own row is picked by its id.
  const { data = [] } = useGetList<WalletResponse>(
    'wallets',
    { filter: { q: dealer.dealer_code ?? dealer.name }, pagination: { page: 1, perPage: 25 }, sort: { field: 'dealer', order: 'ASC' } },
    { enabled: seesWallets },
  );
  const wallet = data.find((w) => w.dealer_id === dealer.id);
  return wallet && Number(wallet.balance) !== 0 ? `${wallet.balance} ${wallet.currency}` : null;
}
