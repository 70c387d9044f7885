import { useState } from 'react';
import { useGetList, useTranslate } from 'react-admin';
import {
  Autocomplete,
  Button,
  FormControl,
  FormControlLabel,
  FormHelperText,
  FormLabel,
  Menu,
  MenuItem,
  Radio,
  RadioGroup,
  TextField,
  Typography,
} from '@mui/material';
import MoreIcon from '@mui/icons-material/ArrowDropDown';
import { REVIEW_OUTCOMES, type WalletResponse } from '@app/contracts';
import { MoneyDialog } from '../wallets/MoneyDialog';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useSession } from '../providers/useSession';
import { hasPermission } from '../permissions/permissions';
import type { Difference, DifferenceAction } from './types';

type Values = { note: string; outcome?: string; wallet_id?: string; type?: string; amount?: string };

/** The fields each action sends besides its note (MoneyDialog puts the API's 422 errors on exactly these). */
const INITIAL: Record<DifferenceAction, Values> = {
  reask: { note: '' },
  settle: { outcome: '', note: '' },
  adjust: { wallet_id: '', type: 'credit', amount: '', note: '' },
  accept: { note: '' },
};

/**
 * Settling answers a sale that waits in review (the API answers 409 otherwise): offered only when
 * our side of the difference says the sale is in review (its `state`, the sale's status).
 */
export const canSettle = (d: Difference) => d.recharge_id !== null && (d.ours?.state ?? d.ours?.status) === 'needs_review';

/**
 * An unhandled difference's "Handle" menu: re-ask the vendor, settle the sale, write an adjustment
 * to a dealer's wallet, or accept it as it is. Each opens a dialog whose note is required (checked
 * before sending); the API's field errors land on their fields.
 */
export function DifferenceActions({ date, difference, onDone }: { date: string; difference: Difference; onDone: () => void }) {
  const translate = useTranslate();
  const dataProvider = useConsoleDataProvider();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [action, setAction] = useState<DifferenceAction | null>(null);
  const { permissions } = useSession();
  // Settling is a review's outcome ('review recharges'); an adjustment writes to a wallet picked from
  // the wallet list ('adjust wallets' and 'view wallets'). The API refuses either without them.
  const allowed = (a: DifferenceAction) =>
    a === 'settle'
      ? canSettle(difference) && hasPermission(permissions, 'review recharges')
      : a === 'adjust'
        ? hasPermission(permissions, 'adjust wallets') && hasPermission(permissions, 'view wallets')
        : true;
  const actions = (['reask', 'settle', 'adjust', 'accept'] as const).filter(allowed);
  const menuId = `difference-actions-${difference.id}`;
  const validate = (v: Values) => {
    const found: Record<string, string> = {};
    if (!v.note.trim()) found.note = translate('validation:note_required');
    if (action === 'settle' && !v.outcome) found.outcome = translate('validation:review_outcome_invalid');
    if (action === 'adjust' && !v.wallet_id) found.wallet_id = translate('daily_close.actions.wallet_required');
    if (action === 'adjust' && !v.amount?.trim()) found.amount = translate('daily_close.actions.amount_required');
    return found;
  };
  return (
    <>
      <Button
        size="small"
        variant="outlined"
        endIcon={<MoreIcon />}
        aria-haspopup="menu"
        aria-controls={anchor ? menuId : undefined}
        aria-expanded={!!anchor}
        onClick={(e) => setAnchor(e.currentTarget)}
      >
        {translate('daily_close.actions.handle')}
      </Button>
      <Menu id={menuId} anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
        {actions.map((a) => (
          <MenuItem
            key={a}
            onClick={() => {
              setAnchor(null);
              setAction(a);
            }}
          >
            {translate(`daily_close.actions.${a}`)}
          </MenuItem>
        ))}
      </Menu>
      {action && (
        <MoneyDialog<Values>
          open
          title={translate(`daily_close.actions.${action}_title`)}
          initial={INITIAL[action]}
          submitLabel={translate(`daily_close.actions.${action}`)}
          validate={validate}
          // A re-ask whose vendor still differs answers 200 with the difference left unhandled: a warning, not a success.
          warning={(data, message) =>
            (data as { handled?: boolean } | undefined)?.handled === false ? (message ?? translate('daily_close.actions.still_unhandled')) : undefined
          }
          send={(v) => dataProvider.resolveDifference({ date, id: difference.id, data: { action, ...trimmed(v) } })}
          onClose={() => setAction(null)}
          onDone={() => {
            setAction(null);
            onDone();
          }}
        >
          {(v, set, e) => (
            <>
              <Typography variant="body2">{translate(`daily_close.actions.${action}_help`)}</Typography>
              {action === 'settle' && (
                <FormControl error={!!e.outcome} component="fieldset">
                  <FormLabel component="legend">{translate('recharges.settle.outcome')}</FormLabel>
                  <RadioGroup row value={v.outcome} onChange={(ev) => set({ outcome: ev.target.value })} name="outcome">
                    {REVIEW_OUTCOMES.map((o) => (
                      <FormControlLabel key={o} value={o} control={<Radio />} label={translate(`recharges.settle.${o}`)} />
                    ))}
                  </RadioGroup>
                  {e.outcome && <FormHelperText>{e.outcome}</FormHelperText>}
                </FormControl>
              )}
              {action === 'adjust' && (
                <>
                  <WalletPicker value={v.wallet_id ?? ''} onChange={(id) => set({ wallet_id: id })} error={e.wallet_id} />
                  <FormControl error={!!e.type} component="fieldset">
                    <FormLabel component="legend">{translate('wallets.fields.type')}</FormLabel>
                    <RadioGroup row value={v.type} onChange={(ev) => set({ type: ev.target.value })} name="type">
                      <FormControlLabel value="credit" control={<Radio />} label={translate('wallets.types.credit')} />
                      <FormControlLabel value="debit" control={<Radio />} label={translate('wallets.types.debit')} />
                    </RadioGroup>
                    {e.type && <FormHelperText>{e.type}</FormHelperText>}
                  </FormControl>
                  <TextField
                    label={translate('wallets.fields.amount')}
                    value={v.amount}
                    onChange={(ev) => set({ amount: ev.target.value })}
                    error={!!e.amount}
                    helperText={e.amount}
                    required
                    slotProps={{ htmlInput: { inputMode: 'decimal', dir: 'ltr' } }}
                  />
                </>
              )}
              <TextField
                label={translate('daily_close.actions.note')}
                value={v.note}
                onChange={(ev) => set({ note: ev.target.value })}
                error={!!e.note}
                helperText={e.note ?? translate('daily_close.actions.note_help')}
                required
                multiline
                minRows={2}
                autoFocus={action !== 'adjust' && action !== 'settle'}
                slotProps={{ htmlInput: { maxLength: 500 } }}
              />
            </>
          )}
        </MoneyDialog>
      )}
    </>
  );
}

const trimmed = (v: Values) => Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? x.trim() : x]));

/** A dealer's wallet from the wallets resource, searched by the dealer's name or code as one types. */
function WalletPicker({ value, onChange, error }: { value: string; onChange: (id: string) => void; error?: string }) {
  const translate = useTranslate();
  const [q, setQ] = useState('');
  const { data = [], isPending } = useGetList<WalletResponse>('wallets', {
    filter: q ? { q } : {},
    pagination: { page: 1, perPage: 25 },
    sort: { field: 'dealer', order: 'ASC' },
  });
  const label = (w: WalletResponse) => `${w.dealer.name}${w.dealer.dealer_code ? ` (${w.dealer.dealer_code})` : ''} · ${w.balance} ${w.currency}`;
  // Kept apart from the options: a new search must not drop the wallet already chosen.
  const [picked, setPicked] = useState<WalletResponse | null>(null);
  const selected = picked && String(picked.id) === value ? picked : null;
  return (
    <Autocomplete
      options={data}
      value={selected}
      loading={isPending}
      getOptionLabel={label}
      isOptionEqualToValue={(a, b) => a.id === b.id}
      filterOptions={(x) => x}
      onInputChange={(_, text, reason) => reason === 'input' && setQ(text)}
      onChange={(_, w) => {
        setPicked(w);
        onChange(w ? String(w.id) : '');
      }}
      renderInput={(params) => <TextField {...params} label={translate('daily_close.actions.wallet')} required error={!!error} helperText={error} />}
    />
  );
}
