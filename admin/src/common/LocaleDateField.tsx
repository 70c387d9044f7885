import { useRecordContext, type FieldProps } from 'react-admin';
import { Typography } from '@mui/material';
import { useCompanyFormat } from './useCompanyFormat';

/**
 * A record's date and time on the company's clock (its time zone, as every list and CSV shows
 * them) in the console's language ('ae' formats as Arabic, 'so' as Somali): useCompanyFormat's
 * dateTime. `showTime` is accepted for the lists that passed it to DateField; the time is always shown.
 */
export function LocaleDateField({ source, emptyText = '' }: FieldProps & { source: string; showTime?: boolean; emptyText?: string }) {
  const record = useRecordContext();
  const fmt = useCompanyFormat();
  const value = record?.[source] as string | null | undefined;
  return (
    <Typography component="span" variant="body2">
      {value ? fmt.dateTime(value) : emptyText}
    </Typography>
  );
}
