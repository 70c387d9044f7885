import { useRef, useState } from 'react';
import { AutocompleteInput, CheckboxGroupInput, Form, RadioButtonGroupInput, ReferenceInput, TextInput, useNotify, useTranslate } from 'react-admin';
import type { FieldValues } from 'react-hook-form';
import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField } from '@mui/material';
import { z } from 'zod';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { API_KEY_MODES, API_KEY_SCOPES, createApiKeySchema, type ApiKeyMode, type CreatedApiKey } from '@app/contracts';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { fieldErrors, serverMessage } from '../providers/errors';
import { schemaResolver } from '../common/schemaResolver';
import { USER_OPTIONS_SORT } from '../common/userOptions';
import { ModeChip } from './ModeChip';
import { CancelSubmitButtons } from '../common/FormParts';

interface Values {
  dealer_id: number | null;
  name: string;
  scopes: string[];
  ip_allowlist: string;
  mode: ApiKeyMode;
}
// Every scope ticked but webhooks:write: a till's key has no business moving the dealer's events elsewhere.
// Live unless asked: a test key is a deliberate choice for trying the API on the sandbox.
const EMPTY: Values = { dealer_id: null, name: '', scopes: API_KEY_SCOPES.filter((s) => s !== 'webhooks:write'), ip_allowlist: '', mode: 'live' };
const KNOWN = Object.keys(EMPTY);

/** A scope's label key: i18next reads ':' as its namespace separator. */
export const scopeLabel = (scope: string) => `api_keys.scopes.${scope.replace(':', '_')}`;

// An admin makes the key for a dealer: the API reads the dealer from the path, so the contract has
// no dealer field; the form asks for one before anything is sent.
const withDealerSchema = createApiKeySchema.extend({ dealer_id: z.number({ message: 'validation:dealer_required' }) });
const toBody = (values: Values) => ({ name: values.name ?? '', scopes: values.scopes ?? [], ip_allowlist: values.ip_allowlist ?? '', mode: values.mode });
const dealerResolver = schemaResolver<Values>(withDealerSchema, (v) => ({ ...toBody(v), dealer_id: v.dealer_id ?? undefined }));
const ownResolver = schemaResolver<Values>(createApiKeySchema, toBody);
const dealerText = (d: { name: string; dealer_code?: string | null }) => `${d.name}${d.dealer_code ? ` (${d.dealer_code})` : ''}`;

/**
 * The new-key dialog: name, mode (live or test), scopes, optional IP allow-list (and, for an admin, the dealer). A
 * react-admin form checked by the shared schema before it is sent; the API's 422 lands on the same fields.
 * Once made, the whole key is shown here only, with a copy button and a plain warning; the dialog
 * then closes only through "I have copied it", so a stray click cannot lose the key.
 */
export function CreateApiKeyDialog({ open, pickDealer, onClose, onDone }: { open: boolean; pickDealer: boolean; onClose: () => void; onDone: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const dataProvider = useConsoleDataProvider();
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const sending = useRef(false);
  // Each opening starts from an empty form.
  const [opening, setOpening] = useState(0);
  const [wasOpen, setWasOpen] = useState(open);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) {
      setOpening((n) => n + 1);
      setGeneral(null);
      setCreated(null);
    }
  }

  const submit = async (values: FieldValues): Promise<Record<string, string> | undefined> => {
    if (sending.current) return undefined;
    const typed = values as Values;
    sending.current = true;
    setBusy(true);
    setGeneral(null);
    try {
      const res = await dataProvider.createApiKey<CreatedApiKey>({ dealerId: pickDealer ? typed.dealer_id : null, data: toBody(typed) });
      setCreated(res.data);
      onDone();
      return undefined;
    } catch (e) {
      // "scopes.1" is the scopes' own error.
      const fields = Object.fromEntries(Object.entries(fieldErrors(e)).map(([k, m]) => [k.split('.')[0], m]));
      const others = Object.entries(fields).filter(([k]) => !KNOWN.includes(k));
      setGeneral(others.length ? others.map(([, m]) => m).join(' ') : Object.keys(fields).length ? null : serverMessage(e));
      // react-admin's Form puts these on their inputs.
      return Object.fromEntries(Object.entries(fields).filter(([k]) => KNOWN.includes(k)));
    } finally {
      sending.current = false;
      setBusy(false);
    }
  };

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created!.key);
      notify('api_keys.copied', { type: 'success' });
    } catch {
      notify('api_keys.copy_failed', { type: 'warning' });
    }
  };

  if (created) {
    return (
      <Dialog open={open} fullWidth maxWidth="sm" aria-labelledby="api-key-created-title">
        <DialogTitle id="api-key-created-title">{translate('api_keys.created_title')}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <Alert severity="warning" role="alert">
              {translate('api_keys.shown_once', { prefix: created.api_key.prefix })}
            </Alert>
            {created.api_key.mode === 'test' && (
              <Alert severity="info" role="note" icon={false}>
                <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
                  <ModeChip mode="test" />
                  <span>{translate('test_mode.test_key_created')}</span>
                </Stack>
              </Alert>
            )}
            <Box sx={{ display: 'flex', gap: 1, alignItems: 'flex-start', flexDirection: { xs: 'column', sm: 'row' } }}>
              <TextField
                label={translate('api_keys.key_label')}
                value={created.key}
                fullWidth
                multiline
                slotProps={{ htmlInput: { readOnly: true, dir: 'ltr', spellCheck: false, style: { fontFamily: 'monospace', wordBreak: 'break-all' } } }}
                onFocus={(e) => e.target.select()}
              />
              <Button variant="outlined" startIcon={<ContentCopyIcon />} onClick={copy} sx={{ flexShrink: 0, mt: { sm: 1 } }}>
                {translate('api_keys.copy')}
              </Button>
            </Box>
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button variant="contained" onClick={onClose}>
            {translate('api_keys.done')}
          </Button>
        </DialogActions>
      </Dialog>
    );
  }

  return (
    <Dialog open={open} onClose={() => !busy && onClose()} fullWidth maxWidth="sm" aria-labelledby="api-key-create-title">
      <DialogTitle id="api-key-create-title">{translate('api_keys.create_title')}</DialogTitle>
      {/* The refusals show on their fields: no "the form is not valid" toast on top. */}
      <Form
        key={opening}
        defaultValues={EMPTY}
        resolver={(pickDealer ? dealerResolver : ownResolver) as never}
        onSubmit={submit}
        noValidate
        disableInvalidFormNotification
      >
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {general && (
              <Alert severity="error" role="alert">
                {general}
              </Alert>
            )}
            {pickDealer && (
              <ReferenceInput source="dealer_id" reference="user-options" sort={USER_OPTIONS_SORT} filter={{ user_type: 'dealer' }} perPage={20}>
                <AutocompleteInput
                  isRequired
                  label={translate('api_keys.fields.dealer')}
                  optionText={dealerText}
                  filterToQuery={(q) => ({ q: q || undefined })}
                  helperText={false}
                />
              </ReferenceInput>
            )}
            <TextInput isRequired source="name" label={translate('api_keys.fields.name')} helperText={false} slotProps={{ htmlInput: { maxLength: 100 } }} />
            <RadioButtonGroupInput
              source="mode"
              label={translate('test_mode.mode')}
              row={false}
              helperText={false}
              choices={API_KEY_MODES.map((mode) => ({ id: mode }))}
              optionText={(choice: { id: ApiKeyMode }) => (
                <span>
                  {translate(`test_mode.${choice.id}`)}
                  <Box component="span" sx={{ display: 'block', color: 'text.secondary', fontSize: '0.85em' }}>
                    {translate(`test_mode.${choice.id}_help`)}
                  </Box>
                </span>
              )}
              sx={{ '& .MuiFormControlLabel-root': { alignItems: 'flex-start', mb: 0.5 }, '& .MuiRadio-root': { pt: 0.5 } }}
            />
            <CheckboxGroupInput
              source="scopes"
              label={translate('api_keys.fields.scopes')}
              row={false}
              helperText={false}
              choices={API_KEY_SCOPES.map((scope) => ({ id: scope }))}
              optionText={(choice: { id: string }) => (
                <span>
                  {translate(scopeLabel(choice.id))}{' '}
                  <Box component="code" dir="ltr" sx={{ color: 'text.secondary', fontSize: '0.85em' }}>
                    {choice.id}
                  </Box>
                </span>
              )}
            />
            <TextInput
              source="ip_allowlist"
              label={translate('api_keys.fields.ip_allowlist')}
              multiline
              minRows={2}
              helperText={translate('api_keys.ip_help')}
              slotProps={{ htmlInput: { dir: 'ltr', spellCheck: false } }}
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <CancelSubmitButtons label={translate('api_keys.create')} busy={busy} onCancel={onClose} />
        </DialogActions>
      </Form>
    </Dialog>
  );
}
