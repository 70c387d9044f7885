import { Box, Link, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { usePublicSettings } from '../common/useCompanyFormat';

/**
 * A copyright line and a developed-by link (docs/product.md section 2). The line names the company's
 * footer text from the company settings when one is set.
 */
export function Footer() {
  const translate = useTranslate();
  const { data } = usePublicSettings();
  const year = new Date().getFullYear();
  return (
    <Box
      component="footer"
      sx={{ px: 3, py: 2, mt: 'auto', display: 'flex', flexWrap: 'wrap', justifyContent: 'space-between', gap: 1, color: 'text.secondary' }}
    >
      <Typography variant="body2" data-testid="footer-copyright">
        {data?.footer_text ? `© ${year} ${data.footer_text}` : translate('footer.copyright', { year })}
      </Typography>
      <Typography variant="body2">
        {translate('footer.developed_by')}{' '}
        <Link href="https://github.com/" target="_blank" rel="noopener noreferrer" color="primary" underline="always">
          {translate('footer.team')}
        </Link>
      </Typography>
    </Box>
  );
}
