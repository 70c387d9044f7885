import { Box, CircularProgress, Fade, Typography } from '@mui/material';

/** Full-page loader with a text; fades in over 200 ms (docs/product.md section 9). */
export function FullPageLoader({ text }: { text?: string }) {
  return (
    <Fade in timeout={200}>
      <Box
        role="status"
        aria-live="polite"
        sx={{ minHeight: '60vh', display: 'flex', flexDirection: 'column', alignItems: 'center', justifyContent: 'center', gap: 2 }}
      >
        <CircularProgress aria-hidden />
        {text && <Typography color="text.secondary">{text}</Typography>}
      </Box>
    </Fade>
  );
}
