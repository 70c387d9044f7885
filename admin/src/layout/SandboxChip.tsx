import { useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router';
import { Chip, Tooltip, useMediaQuery, type Theme } from '@mui/material';
import SandboxIcon from '@mui/icons-material/ScienceOutlined';
import { useConnectorMode, useSandboxText } from './useConnectorMode';

/**
 * The top bar's "Sandbox" chip (issue 28 item 12): "Sandbox" or "Mixed" while all or some new sales
 * are not charged through a real gateway, "No deliveries" (red) while payments are real and no real
 * aggregator may deliver; nothing once both are live (the dashboard still says "Live"). Under 600 px only
 * its icon, named by the same words, so the bar's own buttons stay on screen. It opens the
 * dashboard, whose line says what is real and what is not.
 */
export function SandboxChip() {
  const translate = useTranslate();
  const mode = useConnectorMode();
  const explain = useSandboxText();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'));
  if (!mode) return null;
  // Nothing can deliver (real payments, no real aggregator): every sale fails, the worst state.
  const noDeliveries = mode.payments === 'live' && mode.deliveries === 'none';
  if (mode.payments === 'live' && !noDeliveries) return null;
  const label = translate(noDeliveries ? 'connector_mode.no_deliveries' : `connector_mode.${mode.payments}`);
  const why = explain(mode);
  return (
    <Tooltip title={why}>
      <Chip
        component={RouterLink}
        to="/dashboard"
        clickable
        // The theme's warning and error pairs read at 4.5:1 in light and dark (themes.ts).
        color={noDeliveries ? 'error' : 'warning'}
        size="small"
        icon={<SandboxIcon />}
        label={phone ? undefined : label}
        aria-label={`${label}: ${why}`}
        data-testid="sandbox-chip"
        sx={{ flexShrink: 0, fontWeight: 700, ...(phone ? { width: 32, '& .MuiChip-icon': { m: 0 }, '& .MuiChip-label': { display: 'none' } } : {}) }}
      />
    </Tooltip>
  );
}
