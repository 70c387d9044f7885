import { useNotify, useTranslate } from 'react-admin';
import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField, Typography } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';

/**
 * The signing secret, whole, this once: after the endpoint is first set and after each rotation
 * (the API answers it only then; docs/api-conventions.md, "Webhooks"). The dialog closes only
 * through "I have copied it", so a stray click on the backdrop cannot lose it.
 */
export function SecretDialog({ secret, rotated, onClose }: { secret: string | null; rotated: boolean; onClose: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret ?? '');
      notify('webhooks.secret_copied', { type: 'success' });
    } catch {
      notify('webhooks.copy_failed', { type: 'warning' });
    }
  };
  return (
    <Dialog open={!!secret} fullWidth maxWidth="sm" aria-labelledby="webhook-secret-title">
      <DialogTitle id="webhook-secret-title">{translate('webhooks.secret_title')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Alert severity="warning" role="alert">
            {translate(rotated ? 'webhooks.secret_shown_once_rotated' : 'webhooks.secret_shown_once')}
          </Alert>
          <Box sx={{ display: 'flex', gap: 1, alignItems: 'flex-start', flexDirection: { xs: 'column', sm: 'row' } }}>
            <TextField
              label={translate('webhooks.secret_label')}
              value={secret ?? ''}
              fullWidth
              multiline
              slotProps={{ htmlInput: { readOnly: true, dir: 'ltr', spellCheck: false, style: { fontFamily: 'monospace', wordBreak: 'break-all' } } }}
              onFocus={(e) => e.target.select()}
            />
            <Button variant="outlined" startIcon={<ContentCopyIcon />} onClick={copy} sx={{ flexShrink: 0, mt: { sm: 1 } }}>
              {translate('webhooks.copy')}
            </Button>
          </Box>
          <Typography variant="body2" color="text.secondary">
            {translate('webhooks.secret_use')}
          </Typography>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button variant="contained" onClick={onClose}>
          {translate('webhooks.done')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
