import type { ReactNode } from 'react';
import { LinkBase, useTranslate } from 'react-admin';
import { Box, Typography } from '@mui/material';
import { useMyWallet } from './myWallet';

/**
 * Under the app bar on every page, for a dealer whose balance is below the alert threshold it
 * set: the balance and a "Top up" link to /my-wallet with its top-up request open.
 */
export function LowBalanceBanner() {
  const translate = useTranslate();
  const { data } = useMyWallet();
  const wallet = data?.wallet;
  if (!wallet?.low_balance) return null;
  return (
    <ShellBanner to="/my-wallet?request=1" action={translate('wallets.alert.top_up')}>
      {translate('wallets.alert.banner', {
        balance: `${wallet.balance} ${wallet.currency}`,
        threshold: `${wallet.low_balance_threshold} ${wallet.currency}`,
      })}
    </ShellBanner>
  );
}

/**
 * A warning line under the app bar with a link to where it is dealt with (a dealer's low balance,
 * an aggregator's low float). Part of the shell, so built from what the shell already loads (Box,
 * Typography, a router link) rather than MUI's Alert and Button.
 */
export function ShellBanner({ children, to, action }: { children: ReactNode; to: string; action: string }) {
  return (
    <Box
      role="status"
      // The colours of MUI's standard warning alert: dark text on a pale amber (white on warning.main is only 3:1).
      sx={(t) => ({
        display: 'flex',
        alignItems: 'center',
        flexWrap: 'wrap',
        gap: { xs: 1, sm: 2 },
        px: { xs: 2, sm: 3 },
        py: 1,
        borderBottom: 1,
        borderColor: 'warning.main',
        bgcolor: t.palette.mode === 'dark' ? '#191207' : '#fff4e5',
        color: t.palette.mode === 'dark' ? '#ffe2b7' : '#663c00',
      })}
    >
      <Typography variant="body2" sx={{ flex: '1 1 240px', fontWeight: 500 }}>
        {children}
      </Typography>
      <Box
        component={LinkBase}
        to={to}
        sx={{
          color: 'inherit',
          border: 1,
          borderColor: 'currentColor',
          borderRadius: 1,
          px: 1.5,
          py: 0.5,
          fontSize: 14,
          fontWeight: 600,
          textDecoration: 'none',
          whiteSpace: 'nowrap',
          '&:hover, &:focus-visible': { bgcolor: 'rgba(0,0,0,0.08)' },
        }}
      >
        {action}
      </Box>
    </Box>
  );
}
