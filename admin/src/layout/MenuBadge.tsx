import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { Box } from '@mui/material';
import type { BadgeKind, MenuItem } from './menu';
import { useReviewCount } from './useReviewCount';
import { usePendingRequestCount } from '../wallets/usePendingRequestCount';
import { useBelowAlertCount } from '../wallets/useBelowAlertCount';

/** An item's own badge kinds as a list. */
const kindsOf = (badge: MenuItem['badge']): readonly BadgeKind[] => (badge === undefined ? [] : typeof badge === 'string' ? [badge] : badge);

/** The badges an item or, while closed, its group shows (its children's, each kind once); undefined when none. */
export const badgeOf = (item: MenuItem): BadgeKind[] | undefined => {
  const kinds = [...new Set([...kindsOf(item.badge), ...(item.children ?? []).flatMap((c) => badgeOf(c) ?? [])])];
  return kinds.length ? kinds : undefined;
};

/** What waits is a warning; a wallet under its alert is money running out: red. */
const COLOUR: Record<BadgeKind, 'warning' | 'error'> = { review: 'warning', money_requests: 'warning', below_alert: 'error' };
const LABEL: Record<BadgeKind, string> = { review: 'menu.waiting', money_requests: 'menu.waiting', below_alert: 'menu.below_alert' };

/** The counts of the kinds shown (only those are polled: the others' calls are never made). */
function useBadgeCounts(kinds: readonly BadgeKind[]): [BadgeKind, number][] {
  const counts: Record<BadgeKind, number> = {
    review: useReviewCount(kinds.includes('review')),
    money_requests: usePendingRequestCount(kinds.includes('money_requests')),
    below_alert: useBelowAlertCount(kinds.includes('below_alert')),
  };
  return kinds.map((k) => [k, counts[k]] as [BadgeKind, number]).filter(([, n]) => n > 0);
}

// A plain Box rather than MUI's Chip or Badge: the menu is on the initial script, which stays small.
const pill = (kind: BadgeKind) =>
  ({
    display: 'inline-flex',
    alignItems: 'center',
    justifyContent: 'center',
    minWidth: 20,
    height: 20,
    px: 0.75,
    borderRadius: 10,
    bgcolor: `${COLOUR[kind]}.main`,
    color: `${COLOUR[kind]}.contrastText`,
    fontSize: 12,
    fontWeight: 700,
    lineHeight: 1,
    flexShrink: 0,
  }) as const;

/** A coloured count per kind after the label (warning: waiting; red: under the alert); nothing at 0. */
export function MenuCount({ kind }: { kind: MenuItem['badge'] }) {
  const translate = useTranslate();
  const shown = useBadgeCounts(kindsOf(kind));
  if (!shown.length) return null;
  return (
    <>
      {shown.map(([k, count], i) => (
        <Box key={k} component="span" role="status" aria-label={translate(LABEL[k], { smart_count: count })} sx={{ ...pill(k), ml: i ? 0.5 : 1 }}>
          {count > 99 ? '99+' : count}
        </Box>
      ))}
    </>
  );
}

/** The same counts over an icon (the collapsed sidebar shows icons only), one above the other. */
export function IconCount({ kind, children }: { kind: MenuItem['badge']; children: ReactNode }) {
  const translate = useTranslate();
  const shown = useBadgeCounts(kindsOf(kind));
  if (!shown.length) return <>{children}</>;
  return (
    <Box component="span" sx={{ position: 'relative', display: 'inline-flex' }}>
      {children}
      <Box component="span" sx={{ position: 'absolute', top: -8, right: -10, display: 'flex', flexDirection: 'column', gap: '2px' }}>
        {shown.map(([k, count]) => (
          <Box
            key={k}
            component="span"
            aria-label={translate(LABEL[k], { smart_count: count })}
            sx={{ ...pill(k), height: 16, minWidth: 16, fontSize: 10, px: 0.5 }}
          >
            {count > 99 ? '99+' : count}
          </Box>
        ))}
      </Box>
    </Box>
  );
}
