import type { ReactNode } from 'react';
import { Stack, Typography } from '@mui/material';
import { useEffect } from 'react';
import { useCompanyName } from './useCompanyFormat';

/** The page heading (h1) and the document title ("page | company"). */
export function PageTitle({ title, actions }: { title: string; actions?: ReactNode }) {
  const company = useCompanyName();
  useEffect(() => {
    document.title = `${title} | ${company}`;
  }, [title, company]);
  return (
    <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', gap: 1, mb: 2 }}>
      <Typography variant="h5" component="h1" sx={{ fontWeight: 700 }}>
        {title}
      </Typography>
      {actions}
    </Stack>
  );
}
