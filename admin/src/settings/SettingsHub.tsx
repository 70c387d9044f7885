import { useTranslate } from 'react-admin';
import { Card, CardActionArea, CardContent, Grid, Typography } from '@mui/material';
import { Link } from 'react-router';
import BusinessIcon from '@mui/icons-material/BusinessOutlined';
import MailIcon from '@mui/icons-material/MailOutlined';
import SecurityIcon from '@mui/icons-material/SecurityOutlined';
import PlaceIcon from '@mui/icons-material/PlaceOutlined';
import PaymentsIcon from '@mui/icons-material/PaymentsOutlined';
import ContactsIcon from '@mui/icons-material/ContactPhoneOutlined';
import SavingsIcon from '@mui/icons-material/SavingsOutlined';
import type { ComponentType } from 'react';
import { PageTitle } from '../common/PageTitle';
import { useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';

/** The /settings children of docs/product.md section 2, each with the permission that opens it. */
export const SETTINGS_PAGES: { path: string; label: string; help: string; permission: string; icon: ComponentType }[] = [
  { path: '/settings/company', label: 'menu.settings_company', help: 'settings.hub.company', permission: 'view company settings', icon: BusinessIcon },
  { path: '/settings/money', label: 'menu.settings_money', help: 'settings.hub.money', permission: 'view company settings', icon: SavingsIcon },
  { path: '/settings/mail', label: 'menu.settings_mail', help: 'settings.hub.mail', permission: 'view mail settings', icon: MailIcon },
  {
    path: '/settings/payment-methods',
    label: 'menu.settings_payment_methods',
    help: 'settings.hub.payment_methods',
    permission: 'view payment methods',
    icon: PaymentsIcon,
  },
  { path: '/settings/contacts', label: 'menu.settings_contacts', help: 'settings.hub.contacts', permission: 'view contact settings', icon: ContactsIcon },
  { path: '/settings/areas', label: 'menu.settings_areas', help: 'settings.hub.areas', permission: 'view areas', icon: PlaceIcon },
  { path: '/settings/roles', label: 'menu.roles', help: 'settings.hub.roles', permission: 'view roles', icon: SecurityIcon },
];

/** /settings: a card per settings page the user may open. */
export default function SettingsHub() {
  const translate = useTranslate();
  const perms = useUserPermissions();
  const pages = SETTINGS_PAGES.filter((p) => hasPermission(perms, p.permission));
  return (
    <>
      <PageTitle title={translate('menu.settings')} />
      <Grid container spacing={2}>
        {pages.map(({ path, label, help, icon: Icon }) => (
          <Grid key={path} size={{ xs: 12, sm: 6, md: 4 }}>
            <Card sx={{ height: '100%' }}>
              <CardActionArea component={Link} to={path} sx={{ height: '100%' }}>
                <CardContent>
                  <Icon />
                  <Typography variant="h6" component="h2" sx={{ mt: 1 }}>
                    {translate(label)}
                  </Typography>
                  <Typography variant="body2" color="text.secondary">
                    {translate(help)}
                  </Typography>
                </CardContent>
              </CardActionArea>
            </Card>
          </Grid>
        ))}
        {pages.length === 0 && <Typography color="text.secondary">{translate('settings.hub.nothing')}</Typography>}
      </Grid>
    </>
  );
}
