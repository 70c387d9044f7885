import { useTranslate } from 'react-admin';
import { Card, CardContent, Stack, Typography } from '@mui/material';
import SandboxIcon from '@mui/icons-material/ScienceOutlined';
import LiveIcon from '@mui/icons-material/VerifiedOutlined';
import { useConnectorMode } from '../layout/useConnectorMode';

/**
 * The dashboard's line on what is real (GET /connectors/mode): "Payments: Sandbox — nobody is
 * charged · Deliveries: Sandbox" while the stand-ins take the sales, "Payments: Mixed — some
 * customers are not charged" while only some gateways are real, "Payments: Live" once all are
 * (deliveries and SMS named only while they are not live: "Deliveries: None", in red, when nothing
 * can deliver). No link: the server's configuration decides, no console page changes it.
 */
export function ConnectorModeLine() {
  const translate = useTranslate();
  const mode = useConnectorMode();
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
  const live = mode.payments === 'live' && mode.deliveries !== 'none';
  const noDeliveries = mode.payments === 'live' && mode.deliveries === 'none';
  return (
    <Card
      variant="outlined"
      sx={{ mb: 2, borderColor: live ? 'divider' : noDeliveries ? 'error.main' : 'warning.main' }}
      component="section"
      aria-label={translate('connector_mode.title')}
    >
      <CardContent sx={{ py: 1, '&:last-child': { pb: 1 } }}>
        <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
          {live ? <LiveIcon color="success" fontSize="small" /> : <SandboxIcon color={noDeliveries ? 'error' : 'warning'} fontSize="small" />}
          <Typography variant="body2" sx={{ fontWeight: live ? 400 : 600, flex: 1, minWidth: 0 }} data-testid="connector-mode-line">
            {parts.join(' · ')}
          </Typography>
        </Stack>
      </CardContent>
    </Card>
  );
}
