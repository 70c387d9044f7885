import type { ReactNode } from 'react';
import { Drawer, IconButton, Stack, Typography } from '@mui/material';
import CloseIcon from '@mui/icons-material/Close';

/**
 * A record's page over its list (an API key, a webhook delivery): a drawer from the side, full
 * width on a phone, with the record's title and a close button above `children` (nothing while
 * the record is loading).
 */
export function DetailDrawer({
  open,
  onClose,
  title,
  closeLabel,
  width,
  children,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  closeLabel: string;
  width: number;
  children: ReactNode;
}) {
  return (
    <Drawer anchor="right" open={open} onClose={onClose} slotProps={{ paper: { sx: { width: { xs: '100%', sm: width }, p: 2 } } }}>
      {children ? (
        <Stack spacing={2} role="region" aria-label={title}>
          <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between' }}>
            <Typography variant="h6" component="h2">
              {title}
            </Typography>
            <IconButton onClick={onClose} aria-label={closeLabel}>
              <CloseIcon />
            </IconButton>
          </Stack>
          {children}
        </Stack>
      ) : null}
    </Drawer>
  );
}
