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

/**
 * A sale's status. `needs_review` is a filled warning chip with an icon (a person has to act);
 * `refunded` is an outlined one. With `reason`, the review reason shows on hover.
 */
export function RechargeStatus({ status, reason }: { status: string; reason?: string | null }) {
  const translate = useTranslate();
  const review = status === 'needs_review';
  const chip = (
    <Chip
      size="small"
      color={COLORS[status] ?? 'default'}
      variant={status === 'refunded' ? 'outlined' : 'filled'}
      icon={review ? <ReviewIcon /> : undefined}
      label={translate(`recharges.status.${status}`, { _: status })}
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
