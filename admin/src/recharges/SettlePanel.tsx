import { useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  FormControl,
  FormControlLabel,
  FormHelperText,
  FormLabel,
  Paper,
  Radio,
  RadioGroup,
  TextField,
  Typography,
} from '@mui/material';
import { REVIEW_OUTCOMES, type RechargeResponse } from '@app/contracts';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { fieldErrors, serverMessage } from '../providers/errors';

type Outcome = (typeof REVIEW_OUTCOMES)[number];
/** What the payment service's own portal shows: '' (not known: nothing is sent), paid (with its id) or not paid. */
type Portal = '' | 'paid' | 'not_paid';

/**
 * A sale in review is answered by a person: delivered (the customer's payment is committed and
 * the sale completes) or not delivered (the payment is cancelled or reversed and the dealer's
 * debit returned), with a note saying what showed it. A confirmation says what happens to the
 * money before anything is sent; the server's message shows on its field or above the form
 * (409 when the sale is no longer in review).
 *
 * A payment whose outcome the product could not learn (payment_state `sent`: e.g. an eDahab answer
 * lost before its invoice id was known) may be told from the payment service's own portal: paid,
 * with the service's id for it (required then), or not paid; sent as `payment`. Left at "Don't
 * know", nothing is sent about it.
 */
export function SettlePanel({
  recharge,
  onSettled,
}: {
  recharge: Pick<RechargeResponse, 'id' | 'reference' | 'amount' | 'currency' | 'pricing_model'> & Partial<Pick<RechargeResponse, 'payment_state'>>;
  onSettled: () => void;
}) {
  const translate = useTranslate();
  const notify = useNotify();
  const dataProvider = useConsoleDataProvider();
  const [outcome, setOutcome] = useState<Outcome | ''>('');
  const [note, setNote] = useState('');
  const [portal, setPortal] = useState<Portal>('');
  const [paymentId, setPaymentId] = useState('');
  const asksPortal = recharge.payment_state === 'sent';
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  const check = () => {
    const found: Record<string, string> = {};
    if (!outcome) found.outcome = translate('validation:review_outcome_invalid');
    if (!note.trim()) found.note = translate('validation:note_required');
    else if (note.trim().length > 500) found.note = translate('validation:too_long', { max: 500 });
    if (asksPortal && portal === 'paid' && !paymentId.trim()) found['payment.reference'] = translate('validation:payment_reference_required');
    setErrors(found);
    setGeneral(null);
    if (!Object.keys(found).length) setConfirming(true);
  };

  const settle = async () => {
    setBusy(true);
    try {
      const payment = !asksPortal || !portal ? undefined : portal === 'paid' ? { paid: true, reference: paymentId.trim() } : { paid: false };
      const res = await dataProvider.rechargeAction({
        id: recharge.id,
        action: 'settle',
        data: { outcome, note: note.trim(), ...(payment ? { payment } : {}) },
      });
      notify(res.message ?? 'ra.notification.updated', { type: 'success' });
      setConfirming(false);
      setOutcome('');
      setNote('');
      setPortal('');
      setPaymentId('');
      onSettled();
    } catch (e) {
      setConfirming(false);
      const fields = fieldErrors(e);
      // The portal's answer: its id on its field, anything else about it on the choice.
      const { outcome: o, note: n, 'payment.reference': pr, payment: p, 'payment.paid': pp, ...rest } = fields;
      const mine = { outcome: o, note: n, 'payment.reference': pr, payment: [p, pp].filter(Boolean).join(' ') };
      setErrors(Object.fromEntries(Object.entries(mine).filter(([, v]) => v)) as Record<string, string>);
      const others = Object.values(rest);
      setGeneral(others.length ? others.join(' ') : Object.values(mine).some(Boolean) ? null : serverMessage(e));
    } finally {
      setBusy(false);
    }
  };

  const money = `${recharge.amount} ${recharge.currency}`;
  // What happens to the money depends on the outcome and on the dealer's pricing model (a
  // "Cost + Profit" dealer was debited the cost; a "Profit Only" one earns on completion).
  // A delivered sale whose portal shows nothing paid completes without payment; what the portal
  // shows adds a sentence on what becomes of the payment.
  const unpaid = asksPortal && portal === 'not_paid';
  const consequence = outcome
    ? translate(
        `recharges.settle.consequence.${outcome}${outcome === 'delivered' && unpaid ? '_unpaid' : ''}_${recharge.pricing_model === 'profit' ? 'profit' : 'cost'}`,
        { amount: money },
      )
    : '';
  const portalSays =
    outcome && asksPortal && portal && !(outcome === 'delivered' && unpaid) ? translate(`recharges.settle.portal.says.${portal}_${outcome}`) : '';
  return (
    <Paper variant="outlined" component="section" aria-labelledby="settle-title" sx={{ p: 2, my: 2, borderColor: 'warning.main' }}>
      <Typography variant="subtitle1" component="h3" id="settle-title" sx={{ fontWeight: 600 }}>
        {translate('recharges.settle.title')}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {translate('recharges.settle.help')}
      </Typography>
      {general && (
        <Alert severity="error" role="alert" sx={{ mb: 1 }}>
          {general}
        </Alert>
      )}
      <FormControl error={!!errors.outcome} component="fieldset" sx={{ mb: 1 }}>
        <FormLabel component="legend">{translate('recharges.settle.outcome')}</FormLabel>
        <RadioGroup row value={outcome} onChange={(e) => setOutcome(e.target.value as Outcome)} name="outcome">
          {REVIEW_OUTCOMES.map((o) => (
            <FormControlLabel
              key={o}
              value={o}
              control={<Radio color={o === 'delivered' ? 'success' : 'error'} />}
              label={translate(`recharges.settle.${o}`)}
            />
          ))}
        </RadioGroup>
        {errors.outcome && <FormHelperText>{errors.outcome}</FormHelperText>}
      </FormControl>
      {asksPortal && (
        <FormControl error={!!errors.payment} component="fieldset" sx={{ display: 'block', mb: 1.5 }}>
          <FormLabel component="legend">{translate('recharges.settle.portal.title')}</FormLabel>
          <FormHelperText sx={{ mx: 0 }}>{errors.payment ?? translate('recharges.settle.portal.help')}</FormHelperText>
          <RadioGroup row value={portal} onChange={(e) => setPortal(e.target.value as Portal)} name="payment">
            <FormControlLabel value="" control={<Radio />} label={translate('recharges.settle.portal.unknown')} />
            <FormControlLabel value="paid" control={<Radio color="success" />} label={translate('recharges.settle.portal.paid')} />
            <FormControlLabel value="not_paid" control={<Radio color="error" />} label={translate('recharges.settle.portal.not_paid')} />
          </RadioGroup>
          {portal === 'paid' && (
            <TextField
              label={translate('recharges.settle.portal.reference')}
              value={paymentId}
              onChange={(e) => setPaymentId(e.target.value)}
              error={!!errors['payment.reference']}
              helperText={errors['payment.reference'] ?? translate('recharges.settle.portal.reference_help')}
              required
              fullWidth
              size="small"
              sx={{ mt: 1 }}
              slotProps={{ htmlInput: { maxLength: 120, dir: 'ltr' } }}
            />
          )}
        </FormControl>
      )}
      <TextField
        label={translate('recharges.settle.note')}
        value={note}
        onChange={(e) => setNote(e.target.value)}
        error={!!errors.note}
        helperText={errors.note ?? translate('recharges.settle.note_help')}
        required
        fullWidth
        multiline
        minRows={2}
        slotProps={{ htmlInput: { maxLength: 500 } }}
      />
      {consequence && (
        <Typography variant="body2" sx={{ mt: 1 }}>
          {consequence}
          {portalSays && ` ${portalSays}`}
        </Typography>
      )}
      <Box sx={{ mt: 1.5 }}>
        <Button variant="contained" color="warning" onClick={check} disabled={busy}>
          {translate('recharges.settle.submit')}
        </Button>
      </Box>
      <Dialog open={confirming} onClose={() => !busy && setConfirming(false)} aria-labelledby="settle-confirm-title" maxWidth="xs" fullWidth>
        <DialogTitle id="settle-confirm-title">
          {translate(`recharges.settle.confirm_title.${outcome || 'delivered'}`, { reference: recharge.reference })}
        </DialogTitle>
        <DialogContent>
          <DialogContentText>{consequence}</DialogContentText>
          {portalSays && <DialogContentText sx={{ mt: 1 }}>{portalSays}</DialogContentText>}
          <DialogContentText sx={{ mt: 1 }}>{translate('recharges.settle.final')}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(false)} disabled={busy}>
            {translate('common.cancel')}
          </Button>
          <Button variant="contained" color={outcome === 'not_delivered' ? 'error' : 'success'} onClick={settle} disabled={busy}>
            {translate(busy ? 'recharges.settle.settling' : `recharges.settle.confirm.${outcome || 'delivered'}`)}
          </Button>
        </DialogActions>
      </Dialog>
    </Paper>
  );
}
