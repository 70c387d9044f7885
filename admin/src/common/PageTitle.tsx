import type { ReactNode } from 'react';
import { Stack, Typography } from '@mui/material';
import { useEffect } from 'react';
import { useTranslate } from 'react-admin';

/** The page heading (h1) and the document title. */
export function PageTitle({ title, actions }: { title: string; actions?: ReactNode }) {
  const translate = useTranslate();
  useEffect(() => {
    document.title = `${title} | ${translate('app.name')}`;
  }, [title, translate]);
  return (
    <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', gap: 1, mb: 2 }}>
      <Typography variant="h5" component="h1" sx={{ fontWeight: 700 }}>
        {title}
      </Typography>
      {actions}
    </Stack>
  );
}
