import { useTranslate } from 'react-admin';
import { Box, Card, CardActionArea, CardContent, Grid, Typography } from '@mui/material';
import RequestsIcon from '@mui/icons-material/PendingActionsOutlined';
import LowBalanceIcon from '@mui/icons-material/NotificationsActiveOutlined';
import type { ComponentType } from 'react';
import { Link as RouterLink } from 'react-router';
import { BELOW_ALERT_PATH, MONEY_REQUESTS_PATH } from '../wallets/walletPaths';

/** GET /dashboard's `attention` (staff only; a part is null when the user may not see it). */
export interface Attention {
  money_requests: number | null;
  below_alert: number | null;
}

/**
 * What waits for staff, as the Wallets menu's badges count it: top-up and payout requests to decide
 * (to the requests on the Wallets page) and dealers under their low-balance alert (to the wallets,
 * filtered to them). A card only while its count is above 0.
 */
export function AttentionCards({ attention }: { attention?: Attention | null }) {
  const requests = attention?.money_requests ?? 0;
  const belowAlert = attention?.below_alert ?? 0;
  if (requests <= 0 && belowAlert <= 0) return null;
  return (
    <Grid container spacing={2} sx={{ mb: 2 }}>
      {requests > 0 && (
        <Grid size={{ xs: 12, md: 6 }}>
          <AttentionCard
            colour="warning"
            icon={RequestsIcon}
            to={MONEY_REQUESTS_PATH}
            title={['dashboard.attention_requests', requests]}
            help="dashboard.attention_requests_help"
            action="dashboard.attention_review"
          />
        </Grid>
      )}
      {belowAlert > 0 && (
        <Grid size={{ xs: 12, md: 6 }}>
          <AttentionCard
            colour="error"
            icon={LowBalanceIcon}
            to={BELOW_ALERT_PATH}
            title={['dashboard.attention_below_alert', belowAlert]}
            help="dashboard.attention_below_alert_help"
            action="dashboard.attention_see_wallets"
          />
        </Grid>
      )}
    </Grid>
  );
}

function AttentionCard(props: {
  colour: 'warning' | 'error';
  icon: ComponentType<{ color: 'warning' | 'error'; sx?: object }>;
  to: string;
  title: [string, number];
  help: string;
  action: string;
}) {
  const translate = useTranslate();
  const Icon = props.icon;
  return (
    <Card variant="outlined" sx={{ height: '100%', borderColor: `${props.colour}.main` }}>
      <CardActionArea component={RouterLink} to={props.to} sx={{ height: '100%' }}>
        <CardContent sx={{ display: 'flex', gap: 1.5, alignItems: 'flex-start' }}>
          <Icon color={props.colour} sx={{ mt: 0.5 }} />
          <Box>
            <Typography variant="h6" component="h2">
              {translate(props.title[0], { smart_count: props.title[1] })}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              {translate(props.help)}
            </Typography>
            <Typography variant="body2" color="primary" sx={{ mt: 1, fontWeight: 600 }}>
              {translate(props.action)}
            </Typography>
          </Box>
        </CardContent>
      </CardActionArea>
    </Card>
  );
}
