import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { Alert, Box, Button, Stack } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DownloadIcon from '@mui/icons-material/Download';

/**
 * Ten recovery codes, shown once (the API keeps only hashes): copy them or download them as a text
 * file. Codes read left to right in Arabic too.
 */
export function RecoveryCodes({ codes }: { codes: string[] }) {
  const translate = useTranslate();
  const [copied, setCopied] = useState(false);
  const text = codes.join('\n');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      // Without clipboard access (an http origin, a refused permission) the codes stay selectable.
      setCopied(false);
    }
  };
  const download = () => {
    const url = URL.createObjectURL(new Blob([`${translate('two_factor.codes_file_title')}\n\n${text}\n`], { type: 'text/plain;charset=utf-8' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'recovery-codes.txt';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <Stack spacing={2}>
      <Alert severity="warning">{translate('two_factor.codes_once')}</Alert>
      <Box
        component="ol"
        data-testid="recovery-codes"
        dir="ltr"
        sx={{
          m: 0,
          p: 2,
          listStyle: 'none',
          display: 'grid',
          gridTemplateColumns: { xs: '1fr 1fr', sm: '1fr 1fr' },
          gap: 1,
          fontFamily: 'monospace',
          fontSize: '1rem',
          bgcolor: 'action.hover',
          borderRadius: 1,
          textAlign: 'center',
        }}
      >
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </Box>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
        <Button variant="outlined" startIcon={<ContentCopyIcon />} onClick={copy}>
          {translate(copied ? 'two_factor.copied' : 'two_factor.copy_codes')}
        </Button>
        <Button variant="outlined" startIcon={<DownloadIcon />} onClick={download}>
          {translate('two_factor.download_codes')}
        </Button>
      </Stack>
    </Stack>
  );
}
