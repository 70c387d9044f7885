import { useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router';
import { Card, CardContent, Link, Stack, Typography } from '@mui/material';
import SandboxIcon from '@mui/icons-material/ScienceOutlined';
import LiveIcon from '@mui/icons-material/VerifiedOutlined';
import { useConnectorMode } from '../layout/useConnectorMode';
import { useSession } from '../providers/useSession';
import { hasPermission } from '../permissions/permissions';

/**
 * The dashboard's line on what is real (GET /connectors/mode): "Payments: Sandbox — nobody is
 * charged · Deliveries: Sandbox" while the stand-ins take the sales, "Payments: Mixed — some
 * customers are not charged" while only some gateways are real, "Payments: Live" once all are
 * (deliveries and SMS named only while they are not live: "Deliveries: None" when nothing can deliver). Company-settings holders get the
 * money settings' link.
 */
export function ConnectorModeLine() {
  const translate = useTranslate();
  const mode = useConnectorMode();
  const { permissions } = useSession();
  if (!mode) return null;
  const word = (m: string) => translate(`connector_mode.${m}`);
  const payments = translate('connector_mode.payments', { mode: word(mode.payments) });
  const parts = [
    mode.payments === 'live'
      ? payments
      : translate(mode.payments === 'mixed' ? 'connector_mode.some_not_charged' : 'connector_mode.nobody_charged', { line: payments }),
  ];
  if (mode.payments !== 'live' || mode.deliveries !== 'live') parts.push(translate('connector_mode.deliveries', { mode: word(mode.deliveries) }));
  if (mode.sms !== 'live') parts.push(translate('connector_mode.sms', { mode: word(mode.sms) }));
  const live = mode.payments === 'live';
  return (
    <Card variant="outlined" sx={{ mb: 2, borderColor: live ? 'divider' : 'warning.main' }} component="section" aria-label={translate('connector_mode.title')}>
      <CardContent sx={{ py: 1, '&:last-child': { pb: 1 } }}>
        <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
          {live ? <LiveIcon color="success" fontSize="small" /> : <SandboxIcon color="warning" fontSize="small" />}
          <Typography variant="body2" sx={{ fontWeight: live ? 400 : 600, flex: 1, minWidth: 0 }} data-testid="connector-mode-line">
            {parts.join(' · ')}
          </Typography>
          {hasPermission(permissions, 'view company settings') && (
            <Link component={RouterLink} to="/settings/money" variant="body2">
              {translate('menu.settings_money')}
            </Link>
          )}
        </Stack>
      </CardContent>
    </Card>
  );
}
