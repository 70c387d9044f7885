import { useQuery } from '@tanstack/react-query';
import { HttpError } from 'react-admin';
import type { WalletResponse, WalletTransactionResponse } from '@app/contracts';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useSignedInUser, useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';
import { errorText } from '../providers/errors';

/** GET /my-wallet (contracts: myWalletResponseSchema). */
export interface MyWallet {
  wallet: WalletResponse;
  transactions: WalletTransactionResponse[];
  days: { date: string; credits: string; debits: string; balance: string }[];
  pending_top_ups: number;
  missed_sales_today?: { count: number; amount: string };
}

export const MY_WALLET_KEY = ['my-wallet'] as const;

/** Only a dealer has a wallet of its own: anyone else never calls /my-wallet. */
export function useIsWalletOwner(): boolean {
  const user = useSignedInUser();
  const permissions = useUserPermissions();
  return user?.user_type === 'dealer' && hasPermission(permissions, 'view own wallet');
}

/**
 * The signed-in dealer's wallet, one react-query entry shared by /my-wallet, the layout's
 * low-balance banner and the dashboard (one call, however many of them show).
 */
export function useMyWallet(refetchInterval: number | false = 60_000) {
  const enabled = useIsWalletOwner();
  const dataProvider = useConsoleDataProvider();
  return useQuery({
    queryKey: MY_WALLET_KEY,
    enabled,
    queryFn: async () => {
      const mine = (await dataProvider.myWallet<MyWallet>()).data;
      // A 401 ends the session in react-admin's dataProvider wrapper, which then answers `{}`
      // instead of failing (ra-core useDataProvider): no wallet to show, and reading its balance
      // would throw into the error page while the sign-in page is on its way.
      if (!mine?.wallet) throw new HttpError(errorText('session_expired'), 401, {});
      return mine;
    },
    retry: (failures, error) => (error as { status?: number }).status !== 401 && failures < 1,
    refetchInterval: enabled ? refetchInterval : false,
  });
}
