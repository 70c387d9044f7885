import { useTranslate } from 'react-admin';
import { Box } from '@mui/material';
import type { RechargeResponse } from '@app/contracts';
import { Ltr } from '../common/Ltr';

/** Why a sale that is not completed earned nothing: still under way, never delivered, or its money given back. */
const noProfitKey = (status: RechargeResponse['status']) =>
  status === 'refunded' ? 'recharges.no_profit.refunded' : status === 'failed' ? 'recharges.no_profit.not_delivered' : 'recharges.no_profit.not_yet';

/**
 * A sale's profit: earned only when it was delivered and kept (completed). Any other sale shows a
 * dash, not the 0.00 the API answers, so it does not read as a profit of nothing on a real sale;
 * the reason is its tooltip and read to screen readers, and shown beside it with `explained` (a sale's page).
 */
export function SaleProfit({ r, explained = false }: { r: Pick<RechargeResponse, 'status' | 'profit'>; explained?: boolean }) {
  const translate = useTranslate();
  if (r.status === 'completed') return <Ltr>{r.profit}</Ltr>;
  const why = translate(noProfitKey(r.status));
  return (
    <Box component="span" title={why} data-testid="no-profit">
      <span aria-hidden="true">—</span>
      <Box component="span" sx={explained ? { color: 'text.secondary', marginInlineStart: 1 } : visuallyHidden}>
        {why}
      </Box>
    </Box>
  );
}

const visuallyHidden = { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' } as const;
