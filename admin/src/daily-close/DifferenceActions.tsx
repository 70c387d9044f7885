import { useState } from 'react';
import { AutocompleteInput, RadioButtonGroupInput, ReferenceInput, TextInput, useTranslate } from 'react-admin';
import { Button, Menu, MenuItem, Typography } from '@mui/material';
import MoreIcon from '@mui/icons-material/ArrowDropDown';
import { resolveDifferenceSchema, REVIEW_OUTCOMES, type WalletResponse } from '@app/contracts';
import { MoneyDialog } from '../wallets/MoneyDialog';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useUserPermissions } from '../auth/identity';
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
  const permissions = useUserPermissions();
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
          schema={resolveDifferenceSchema}
          toInput={(v) => ({ action, ...trimmed(v) })}
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
          <Typography variant="body2">{translate(`daily_close.actions.${action}_help`)}</Typography>
          {action === 'settle' && (
            <RadioButtonGroupInput
              source="outcome"
              label="recharges.settle.outcome"
              choices={REVIEW_OUTCOMES.map((o) => ({ id: o, name: `recharges.settle.${o}` }))}
              helperText={false}
            />
          )}
          {action === 'adjust' && (
            <>
              <ReferenceInput source="wallet_id" reference="wallets" sort={{ field: 'dealer', order: 'ASC' }} perPage={25}>
                <AutocompleteInput
                  label="daily_close.actions.wallet"
                  optionText={walletLabel}
                  filterToQuery={(q: string) => (q ? { q } : {})}
                  isRequired
                  helperText={false}
                  fullWidth
                />
              </ReferenceInput>
              <RadioButtonGroupInput source="type" label="wallets.fields.type" choices={TYPES} helperText={false} />
              <TextInput
                source="amount"
                label="wallets.fields.amount"
                isRequired
                fullWidth
                helperText={false}
                slotProps={{ htmlInput: { inputMode: 'decimal', dir: 'ltr' } }}
              />
            </>
          )}
          <TextInput
            source="note"
            label="daily_close.actions.note"
            helperText="daily_close.actions.note_help"
            isRequired
            multiline
            minRows={2}
            fullWidth
            autoFocus={action !== 'adjust' && action !== 'settle'}
            slotProps={{ htmlInput: { maxLength: 500 } }}
          />
        </MoneyDialog>
      )}
    </>
  );
}

const trimmed = (v: Values) => Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? x.trim() : x]));

/** A wallet as the picker names it: the dealer, its code, and the balance. */
const walletLabel = (w: WalletResponse) => `${w.dealer.name}${w.dealer.dealer_code ? ` (${w.dealer.dealer_code})` : ''} · ${w.balance} ${w.currency}`;

const TYPES = [
  { id: 'credit', name: 'wallets.types.credit' },
  { id: 'debit', name: 'wallets.types.debit' },
];
