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

/**
 * A sale in review is answered by a person: delivered (the customer's payment is committed and
 * the sale completes) or not delivered (the payment is cancelled or reversed and the dealer's
 * debit returned), with a note saying what showed it. A confirmation says what happens to the
 * money before anything is sent; the server's message shows on its field or above the form
 * (409 when the sale is no longer in review).
 */
export function SettlePanel({
  recharge,
  onSettled,
}: {
  recharge: Pick<RechargeResponse, 'id' | 'reference' | 'amount' | 'currency' | 'pricing_model'>;
  onSettled: () => void;
}) {
  const translate = useTranslate();
  const notify = useNotify();
  const dataProvider = useConsoleDataProvider();
  const [outcome, setOutcome] = useState<Outcome | ''>('');
  const [note, setNote] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  const check = () => {
    const found: Record<string, string> = {};
    if (!outcome) found.outcome = translate('validation:review_outcome_invalid');
    if (!note.trim()) found.note = translate('validation:note_required');
    else if (note.trim().length > 500) found.note = translate('validation:too_long', { max: 500 });
    setErrors(found);
    setGeneral(null);
    if (!Object.keys(found).length) setConfirming(true);
  };

  const settle = async () => {
    setBusy(true);
    try {
      const res = await dataProvider.rechargeAction({ id: recharge.id, action: 'settle', data: { outcome, note: note.trim() } });
      notify(res.message ?? 'ra.notification.updated', { type: 'success' });
      setConfirming(false);
      setOutcome('');
      setNote('');
      onSettled();
    } catch (e) {
      setConfirming(false);
      const fields = fieldErrors(e);
      const { outcome: o, note: n, ...rest } = fields;
      setErrors(Object.fromEntries(Object.entries({ outcome: o, note: n }).filter(([, v]) => v)) as Record<string, string>);
      const others = Object.values(rest);
      setGeneral(others.length ? others.join(' ') : o || n ? null : serverMessage(e));
    } finally {
      setBusy(false);
    }
  };

  const money = `${recharge.amount} ${recharge.currency}`;
  // What happens to the money depends on the outcome and on the dealer's pricing model (a
  // "Cost + Profit" dealer was debited the cost; a "Profit Only" one earns on completion).
  const consequence = outcome
    ? translate(`recharges.settle.consequence.${outcome}_${recharge.pricing_model === 'profit' ? 'profit' : 'cost'}`, { amount: money })
    : '';
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
