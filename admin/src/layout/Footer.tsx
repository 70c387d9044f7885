import { Box, Link, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useQuery } from '@tanstack/react-query';
import { apiFetch } from '../providers/http';

interface PublicSettings {
  company_name: string;
  footer_text: string | null;
}

/**
 * A copyright line and a developed-by link (docs/product.md section 2). The line names the company's
 * footer text from the company settings when one is set.
 */
export function Footer() {
  const translate = useTranslate();
  const { data } = useQuery({ queryKey: ['settings', 'public'], queryFn: async () => (await apiFetch<PublicSettings>('/settings/public')).data ?? null, staleTime: 5 * 60_000, retry: false });
  const year = new Date().getFullYear();
  return (
    <Box component="footer" sx={{ px: 3, py: 2, mt: 'auto', display: 'flex', flexWrap: 'wrap', justifyContent: 'space-between', gap: 1, color: 'text.secondary' }}>
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
