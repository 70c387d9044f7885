import { useState } from 'react';
import { TextInput, useTranslate } from 'react-admin';
import { Alert, AlertTitle, Box, Button, Typography } from '@mui/material';
import { paidBackSchema, type RechargeResponse } from '@app/contracts';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { isolate, ltr } from '../common/Ltr';
import { MoneyDialog } from '../wallets/MoneyDialog';
import { vendorName } from './RemoteCallTimeline';

/** Where the transfer reference goes in the translated sentence: replaced by an element that never wraps. */
const SLOT = '\u0000';

type PaidBackSale = Pick<
  RechargeResponse,
  'id' | 'reference' | 'amount' | 'currency' | 'payer_phone' | 'phone' | 'payment_state' | 'payment_gateway' | 'paid_back'
>;

/**
 * Money taken through a payment service that has no refund (eDahab) and owed back to the customer
 * (payment_state `refund_due`): a warning saying so, with "Mark as paid back" for holders of
 * 'refund recharges', which records how it went back (a note, required) and the transfer's
 * reference (optional) once. The API's message is the toast; its field errors show on their
 * fields, and its 409 (someone recorded it first) above them. Once recorded (`paid_back`): who,
 * when, how. Nothing for any other sale.
 */
export function PaidBackPanel({ recharge: r, canRecord, onRecorded }: { recharge: PaidBackSale; canRecord: boolean; onRecorded: () => void }) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  const dataProvider = useConsoleDataProvider();
  const [open, setOpen] = useState(false);
  const amount = ltr(`${r.amount} ${r.currency}`);
  const payer = ltr(r.payer_phone ?? r.phone);
  if (r.paid_back) {
    const b = r.paid_back;
    // The name and the note keep their own direction (an English note in Arabic); the reference is
    // left to right and in one piece (EDH-TRF-55120 is not broken at its hyphens on a phone).
    const [before, after = ''] = translate(b.reference ? 'recharges.paid_back.done_reference' : 'recharges.paid_back.done', {
      name: isolate(b.by?.name ?? translate('wallets.system')),
      at: fmt.dateTime(b.at),
      note: isolate(b.note),
      reference: SLOT,
    }).split(SLOT);
    return (
      <Alert severity="success" sx={{ mb: 2 }}>
        {before}
        {b.reference && (
          <Box component="bdi" dir="ltr" sx={{ whiteSpace: 'nowrap' }}>
            {b.reference}
          </Box>
        )}
        {after}
      </Alert>
    );
  }
  if (r.payment_state !== 'refund_due') return null;
  return (
    <>
      <Alert severity="warning" sx={{ mb: 2 }}>
        <AlertTitle>{translate('recharges.paid_back.title')}</AlertTitle>
        {translate('recharges.paid_back.due', {
          gateway: r.payment_gateway ? vendorName(r.payment_gateway) : translate('recharges.paid_back.this_service'),
          amount,
          payer,
        })}
        {canRecord && (
          <Box sx={{ mt: 1 }}>
            <Button variant="contained" color="warning" size="small" onClick={() => setOpen(true)}>
              {translate('recharges.paid_back.mark')}
            </Button>
          </Box>
        )}
      </Alert>
      {open && (
        <MoneyDialog
          open
          title={translate('recharges.paid_back.dialog_title', { reference: ltr(r.reference) })}
          initial={{ note: '', reference: '' }}
          schema={paidBackSchema}
          messages={{ note: 'recharges.paid_back.note_required' }}
          send={(v) =>
            dataProvider.rechargeAction({
              id: r.id,
              action: 'paid-back',
              data: { note: v.note.trim(), ...(v.reference.trim() ? { reference: v.reference.trim() } : {}) },
            })
          }
          submitLabel={translate('recharges.paid_back.mark')}
          onClose={() => setOpen(false)}
          onDone={() => {
            setOpen(false);
            onRecorded();
          }}
        >
          <Typography variant="body2">{translate('recharges.paid_back.dialog_help', { amount, payer })}</Typography>
          <TextInput
            source="note"
            label="recharges.paid_back.note"
            helperText="recharges.paid_back.note_help"
            isRequired
            multiline
            minRows={2}
            autoFocus
            fullWidth
            slotProps={{ htmlInput: { maxLength: 500 } }}
          />
          <TextInput
            source="reference"
            label="recharges.paid_back.reference"
            helperText="recharges.paid_back.reference_help"
            fullWidth
            slotProps={{ htmlInput: { maxLength: 120, dir: 'ltr' } }}
          />
        </MoneyDialog>
      )}
    </>
  );
}
