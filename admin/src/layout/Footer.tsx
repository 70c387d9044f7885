import { Box, Link, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';

/** A copyright line and a developed-by link (docs/product.md section 2). */
export function Footer() {
  const translate = useTranslate();
  return (
    <Box component="footer" sx={{ px: 3, py: 2, mt: 'auto', display: 'flex', flexWrap: 'wrap', justifyContent: 'space-between', gap: 1, color: 'text.secondary' }}>
      <Typography variant="body2">{translate('footer.copyright', { year: new Date().getFullYear() })}</Typography>
      <Typography variant="body2">
        {translate('footer.developed_by')}{' '}
        <Link href="https://github.com/" target="_blank" rel="noopener noreferrer" color="primary" underline="always">
          {translate('footer.team')}
        </Link>
      </Typography>
    </Box>
  );
}
