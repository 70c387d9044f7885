import { useTranslate } from 'react-admin';
import { Box, Chip, Typography } from '@mui/material';
import { Ltr } from '../common/Ltr';
import { useCompanyFormat } from '../common/useCompanyFormat';
import type { DayStatus } from './types';

/** Open (figures still move) or closed (frozen). */
export function DayStatusChip({ status }: { status: DayStatus }) {
  const translate = useTranslate();
  return (
    <Chip
      size="small"
      color={status === 'closed' ? 'success' : 'warning'}
      variant={status === 'closed' ? 'filled' : 'outlined'}
      label={translate(`daily_close.status.${status}`)}
    />
  );
}

/**
 * What one side (our books or the vendor's record) says of a difference: its fields as a short
 * list, values left to right (amounts, references); "nothing" when that side has no record.
 */
export function RecordSide({ title, record }: { title: string; record: Record<string, unknown> | null }) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  // States in the reader's words (ours as the sale's screens say them, the vendor's as the close
  // reads them); times in the company's format; anything else as the record has it.
  const shown = (key: string, value: unknown): string => {
    const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
    if (key === 'state' || key === 'status') return translate(`recharges.status.${text}`, { _: translate(`daily_close.vendor_states.${text}`, { _: text }) });
    if (key === 'payment_state') return translate(`recharges.payment_states.${text}`, { _: text });
    if (key === 'payment_flow') return translate(`recharges.payment_flows.${text}`, { _: text });
    if (key === 'delivery_state') return translate(`recharges.delivery_states.${text}`, { _: text });
    if ((key === 'at' || key === 'created_at') && !Number.isNaN(Date.parse(text))) return fmt.dateTime(text);
    return text;
  };
  const entries = Object.entries(record ?? {}).filter(([, v]) => v !== null && v !== undefined && v !== '');
  return (
    <Box sx={{ minWidth: 0 }}>
      <Typography variant="subtitle2" component="h4">
        {title}
      </Typography>
      {entries.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {translate('daily_close.no_record')}
        </Typography>
      ) : (
        <Box component="dl" sx={{ m: 0, display: 'grid', gridTemplateColumns: 'auto minmax(0, 1fr)', columnGap: 1, rowGap: 0.25, fontSize: 14 }}>
          {entries.map(([k, v]) => (
            <Box key={k} sx={{ display: 'contents' }}>
              <Box component="dt" sx={{ color: 'text.secondary' }}>
                {translate(`daily_close.record_fields.${k}`, { _: k })}
              </Box>
              <Box component="dd" sx={{ m: 0, overflowWrap: 'anywhere' }}>
                <Ltr>{shown(k, v)}</Ltr>
              </Box>
            </Box>
          ))}
        </Box>
      )}
    </Box>
  );
}
