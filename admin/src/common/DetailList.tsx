import type { ReactNode } from 'react';
import { Box } from '@mui/material';

/** A record's facts as a definition list: labels (`dt`) beside their values (`dd`), in two columns. */
export function DetailList({ children }: { children: ReactNode }) {
  return (
    <Box
      component="dl"
      sx={{
        display: 'grid',
        gridTemplateColumns: 'max-content 1fr',
        columnGap: 2,
        rowGap: 1,
        m: 0,
        '& dt': { color: 'text.secondary' },
        // minWidth 0: a long value (a URL, a JSON body) wraps instead of widening the grid.
        '& dd': { m: 0, minWidth: 0 },
      }}
    >
      {children}
    </Box>
  );
}
