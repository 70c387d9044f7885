import { useEffect, useRef, useState } from 'react';
import { useGetList, useNotify, useTranslate } from 'react-admin';
import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControl,
  FormControlLabel,
  FormGroup,
  FormHelperText,
  FormLabel,
  Radio,
  RadioGroup,
  Stack,
  TextField,
} from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { API_KEY_MODES, API_KEY_SCOPES, createApiKeySchema, type ApiKeyMode, type CreatedApiKey } from '@app/contracts';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { fieldErrors, serverMessage } from '../providers/errors';
import { ModeChip } from './ModeChip';

interface Values {
  dealer: { id: number; name: string } | null;
  name: string;
  scopes: string[];
  ip_allowlist: string;
  mode: ApiKeyMode;
}
// Every scope ticked but webhooks:write: a till's key has no business moving the dealer's events elsewhere.
// Live unless asked: a test key is a deliberate choice for trying the API on the sandbox.
const EMPTY: Values = { dealer: null, name: '', scopes: API_KEY_SCOPES.filter((s) => s !== 'webhooks:write'), ip_allowlist: '', mode: 'live' };

/** A scope's label key: i18next reads ':' as its namespace separator. */
export const scopeLabel = (scope: string) => `api_keys.scopes.${scope.replace(':', '_')}`;

/**
 * The new-key dialog: name, mode (live or test), scopes, optional IP allow-list (and, for an admin, the dealer). The
 * shared schema checks the form before it is sent and the API's 422 lands on the same fields.
 * Once made, the whole key is shown here only, with a copy button and a plain warning; the dialog
 * then closes only through "I have copied it", so a stray click cannot lose the key.
 */
export function CreateApiKeyDialog({ open, pickDealer, onClose, onDone }: { open: boolean; pickDealer: boolean; onClose: () => void; onDone: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const dataProvider = useConsoleDataProvider();
  const [values, setValues] = useState<Values>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [dealerSearch, setDealerSearch] = useState('');
  const sending = useRef(false);
  const { data: dealers = [] } = useGetList<{ id: number; name: string; dealer_code?: string | null }>(
    'user-options',
    { filter: { user_type: 'dealer', q: dealerSearch || undefined }, pagination: { page: 1, perPage: 20 }, sort: { field: 'name', order: 'ASC' } },
    { enabled: open && pickDealer },
  );

  useEffect(() => {
    if (!open) return;
    setValues(EMPTY);
    setErrors({});
    setGeneral(null);
    setCreated(null);
  }, [open]);

  const set = (patch: Partial<Values>) => setValues((v) => ({ ...v, ...patch }));
  const t = (message: string | undefined) => (message ? translate(message, { _: message }) : undefined);

  const submit = async () => {
    if (sending.current) return;
    const body = { name: values.name, scopes: values.scopes, ip_allowlist: values.ip_allowlist, mode: values.mode };
    const checked = createApiKeySchema.safeParse(body);
    const local: Record<string, string> = {};
    if (!checked.success) for (const issue of checked.error.issues) local[String(issue.path[0] ?? 'name')] ??= issue.message;
    if (pickDealer && !values.dealer) local.dealer_id = 'validation:dealer_required';
    if (Object.keys(local).length) {
      setErrors(local);
      return;
    }
    sending.current = true;
    setBusy(true);
    setErrors({});
    setGeneral(null);
    try {
      const res = await dataProvider.createApiKey<CreatedApiKey>({ dealerId: pickDealer ? values.dealer?.id : null, data: body });
      setCreated(res.data);
      onDone();
    } catch (e) {
      const fields = Object.fromEntries(Object.entries(fieldErrors(e)).map(([k, m]) => [k.split('.')[0], m]));
      setErrors(fields);
      const known = ['name', 'scopes', 'ip_allowlist', 'dealer_id', 'mode'];
      const others = Object.entries(fields).filter(([k]) => !known.includes(k));
      setGeneral(others.length ? others.map(([, m]) => m).join(' ') : Object.keys(fields).length ? null : serverMessage(e));
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
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {general && (
            <Alert severity="error" role="alert">
              {general}
            </Alert>
          )}
          {pickDealer && (
            <Autocomplete
              options={dealers}
              value={values.dealer}
              getOptionLabel={(d) => `${d.name}${(d as { dealer_code?: string }).dealer_code ? ` (${(d as { dealer_code?: string }).dealer_code})` : ''}`}
              isOptionEqualToValue={(a, b) => a.id === b.id}
              onChange={(_e, d) => set({ dealer: d ? { id: d.id, name: d.name } : null })}
              onInputChange={(_e, text) => setDealerSearch(text)}
              renderInput={(params) => (
                <TextField {...params} label={translate('api_keys.fields.dealer')} required error={!!errors.dealer_id} helperText={t(errors.dealer_id)} />
              )}
            />
          )}
          <TextField
            label={translate('api_keys.fields.name')}
            value={values.name}
            onChange={(e) => set({ name: e.target.value })}
            required
            error={!!errors.name}
            helperText={t(errors.name)}
            slotProps={{ htmlInput: { maxLength: 100 } }}
          />
          <FormControl error={!!errors.mode} component="fieldset" variant="standard">
            <FormLabel component="legend">{translate('test_mode.mode')}</FormLabel>
            <RadioGroup value={values.mode} onChange={(e) => set({ mode: e.target.value as ApiKeyMode })}>
              {API_KEY_MODES.map((mode) => (
                <FormControlLabel
                  key={mode}
                  value={mode}
                  control={<Radio />}
                  label={
                    <span>
                      {translate(`test_mode.${mode}`)}
                      <Box component="span" sx={{ display: 'block', color: 'text.secondary', fontSize: '0.85em' }}>
                        {translate(`test_mode.${mode}_help`)}
                      </Box>
                    </span>
                  }
                  sx={{ alignItems: 'flex-start', mb: 0.5, '& .MuiRadio-root': { pt: 0.5 } }}
                />
              ))}
            </RadioGroup>
            {errors.mode && <FormHelperText>{t(errors.mode)}</FormHelperText>}
          </FormControl>
          <FormControl error={!!errors.scopes} component="fieldset" variant="standard">
            <FormLabel component="legend">{translate('api_keys.fields.scopes')}</FormLabel>
            <FormGroup>
              {API_KEY_SCOPES.map((scope) => (
                <FormControlLabel
                  key={scope}
                  control={
                    <Checkbox
                      checked={values.scopes.includes(scope)}
                      onChange={(e) => set({ scopes: e.target.checked ? [...values.scopes, scope] : values.scopes.filter((s) => s !== scope) })}
                    />
                  }
                  label={
                    <span>
                      {translate(scopeLabel(scope))}{' '}
                      <Box component="code" dir="ltr" sx={{ color: 'text.secondary', fontSize: '0.85em' }}>
                        {scope}
                      </Box>
                    </span>
                  }
                />
              ))}
            </FormGroup>
            {errors.scopes && <FormHelperText>{t(errors.scopes)}</FormHelperText>}
          </FormControl>
          <TextField
            label={translate('api_keys.fields.ip_allowlist')}
            value={values.ip_allowlist}
            onChange={(e) => set({ ip_allowlist: e.target.value })}
            multiline
            minRows={2}
            error={!!errors.ip_allowlist}
            helperText={t(errors.ip_allowlist) ?? translate('api_keys.ip_help')}
            slotProps={{ htmlInput: { dir: 'ltr', spellCheck: false } }}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          {translate('common.cancel')}
        </Button>
        <Button variant="contained" onClick={submit} disabled={busy}>
          {translate('api_keys.create')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
