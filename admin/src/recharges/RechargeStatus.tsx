import { useTranslate } from 'react-admin';
import { Chip, Tooltip } from '@mui/material';
import ReviewIcon from '@mui/icons-material/PendingActionsOutlined';

type ChipColor = 'default' | 'info' | 'success' | 'error' | 'warning';

const COLORS: Record<string, ChipColor> = {
  pending: 'default',
  processing: 'info',
  completed: 'success',
  failed: 'error',
  refunded: 'warning',
  needs_review: 'warning',
};

/** Payment states of a refund decided but not yet back with the customer. */
const RETURN_OPEN = new Set(['sent', 'reserved', 'committing', 'collected', 'releasing', 'refund_due']);

/**
 * A sale's status. `needs_review` is a filled warning chip with an icon (a person has to act);
 * `refunded` is an outlined one, and reads "Refund pending" while the customer's money (`payment`)
 * is not back yet (a refund by hand the gateway has not confirmed): the word says what became of
 * the money. With `reason`, the review reason shows on hover.
 */
export function RechargeStatus({ status, reason, payment }: { status: string; reason?: string | null; payment?: string | null }) {
  const translate = useTranslate();
  const review = status === 'needs_review';
  const shown = status === 'refunded' && payment && RETURN_OPEN.has(payment) ? 'refund_pending' : status;
  const chip = (
    <Chip
      size="small"
      color={COLORS[status] ?? 'default'}
      variant={status === 'refunded' ? 'outlined' : 'filled'}
      icon={review ? <ReviewIcon /> : undefined}
      label={translate(`recharges.status.${shown}`, { _: shown })}
    />
  );
  return review && reason ? <Tooltip title={reason}>{chip}</Tooltip> : chip;
}

const PAYMENT_COLORS: Record<string, ChipColor> = {
  none: 'default',
  sent: 'warning',
  reserved: 'info',
  committing: 'warning',
  collected: 'success',
  declined: 'error',
  releasing: 'warning',
  released: 'default',
  refunded: 'default',
  absent: 'default',
  // A person has to pay the customer back by hand (a gateway without refunds); then it is settled.
  refund_due: 'warning',
  paid_back: 'default',
};
const DELIVERY_COLORS: Record<string, ChipColor> = { none: 'default', sent: 'warning', processing: 'info', delivered: 'success', failed: 'error' };

/**
 * Where the customer's payment or the delivery stands (contracts: PAYMENT_STATES, DELIVERY_STATES).
 * Money to pay back by hand (`refund_due`) is a filled warning chip: a person has to act.
 */
export function StateChip({ kind, state }: { kind: 'payment' | 'delivery'; state: string | null | undefined }) {
  const translate = useTranslate();
  if (!state) return null;
  const color = (kind === 'payment' ? PAYMENT_COLORS : DELIVERY_COLORS)[state] ?? 'default';
  const act = kind === 'payment' && state === 'refund_due';
  return <Chip size="small" variant={act ? 'filled' : 'outlined'} color={color} label={translate(`recharges.${kind}_states.${state}`, { _: state })} />;
}
