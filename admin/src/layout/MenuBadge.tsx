import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { Box } from '@mui/material';
import type { MenuItem } from './menu';
import { useReviewCount } from './useReviewCount';
import { usePendingRequestCount } from '../wallets/usePendingRequestCount';

/** The badge an item or, while closed, its group shows ('review': sales waiting for review). */
export const badgeOf = (item: MenuItem): MenuItem['badge'] => item.badge ?? item.children?.map(badgeOf).find(Boolean);

function useBadgeCount(kind: MenuItem['badge']): number {
  const review = useReviewCount();
  const money = usePendingRequestCount();
  return kind === 'review' ? review : kind === 'money_requests' ? money : 0;
}

// A plain Box rather than MUI's Chip or Badge: the menu is on the initial script, which stays small.
const pill = {
  display: 'inline-flex',
  alignItems: 'center',
  justifyContent: 'center',
  minWidth: 20,
  height: 20,
  px: 0.75,
  borderRadius: 10,
  bgcolor: 'warning.main',
  color: 'warning.contrastText',
  fontSize: 12,
  fontWeight: 700,
  lineHeight: 1,
  flexShrink: 0,
} as const;

/** A warning-coloured count after the label; nothing at 0. */
export function MenuCount({ kind }: { kind: NonNullable<MenuItem['badge']> }) {
  const translate = useTranslate();
  const count = useBadgeCount(kind);
  if (!count) return null;
  return (
    <Box component="span" role="status" aria-label={translate('menu.waiting', { smart_count: count })} sx={{ ...pill, ml: 1 }}>
      {count > 99 ? '99+' : count}
    </Box>
  );
}

/** The same count over an icon (the collapsed sidebar shows icons only). */
export function IconCount({ kind, children }: { kind: MenuItem['badge']; children: ReactNode }) {
  const translate = useTranslate();
  const count = useBadgeCount(kind);
  if (!kind || !count) return <>{children}</>;
  return (
    <Box component="span" sx={{ position: 'relative', display: 'inline-flex' }}>
      {children}
      <Box
        component="span"
        aria-label={translate('menu.waiting', { smart_count: count })}
        sx={{ ...pill, position: 'absolute', top: -8, right: -10, height: 16, minWidth: 16, fontSize: 10, px: 0.5 }}
      >
        {count > 99 ? '99+' : count}
      </Box>
    </Box>
  );
}
