import { useEffect, useMemo } from 'react';
import { Avatar, Box, Button, FormHelperText, Stack, Typography } from '@mui/material';
import UploadIcon from '@mui/icons-material/CloudUploadOutlined';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import { useTranslate } from 'react-admin';
import { resolveImage } from '../common/image';

/** Dealer logo area: images only, hint 'JPG, PNG, GIF (Max 5MB)', size not enforced client-side. */
export function LogoUpload({
  file,
  current,
  onChange,
  onRemove,
  busy = false,
  error,
}: {
  file: File | null;
  current?: string | null;
  onChange: (f: File | null) => void;
  /** Offered when a saved logo is shown: removes it on the server. */
  onRemove?: () => void;
  busy?: boolean;
  error?: string;
}) {
  const translate = useTranslate();
  const preview = useMemo(() => (file ? URL.createObjectURL(file) : current ? resolveImage(current) : null), [file, current]);
  useEffect(() => () => void (file && preview && URL.revokeObjectURL(preview)), [file, preview]);
  return (
    <Box data-testid="logo-area" sx={{ border: 1, borderStyle: 'dashed', borderColor: error ? 'error.main' : 'divider', borderRadius: 2, p: 2 }}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <Avatar variant="rounded" src={preview ?? undefined} alt="" sx={{ width: 64, height: 64 }} />
        <Box>
          <Stack direction="row" spacing={1}>
            <Button component="label" variant="outlined" startIcon={<UploadIcon />} disabled={busy}>
              {translate('users.fields.dealer_logo')}
              <input hidden type="file" accept="image/*" name="dealer_logo" onChange={(e) => onChange(e.target.files?.[0] ?? null)} />
            </Button>
            {onRemove && current && !file && (
              <Button color="error" startIcon={<DeleteIcon />} onClick={onRemove} disabled={busy}>
                {translate('users.remove_logo')}
              </Button>
            )}
          </Stack>
          <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mt: 0.5 }}>
            {file ? file.name : translate('users.logo_hint')}
          </Typography>
        </Box>
      </Stack>
      {error && <FormHelperText error>{translate(error, { _: error })}</FormHelperText>}
    </Box>
  );
}
