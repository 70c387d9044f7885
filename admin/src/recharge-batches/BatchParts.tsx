import { useTranslate } from 'react-admin';
import { Box, Chip, LinearProgress, Stack, Typography } from '@mui/material';
import type { RechargeBatchResponse } from '@app/contracts';

const COLORS = { queued: 'default', running: 'info', completed: 'success' } as const;

export function BatchStatusChip({ status }: { status: RechargeBatchResponse['status'] }) {
  const translate = useTranslate();
  return <Chip size="small" color={COLORS[status]} label={translate(`recharge_batches.status.${status}`)} />;
}

/** The lines handled so far (a bar with its percent) and what became of them and of their sales. */
export function BatchProgress({ batch }: { batch: RechargeBatchResponse }) {
  const translate = useTranslate();
  const figures: [string, number][] = [
    ['recharge_batches.counts.total', batch.lines_total],
    ['recharge_batches.counts.pending', batch.lines_pending],
    ['recharge_batches.counts.accepted', batch.lines_accepted],
    ['recharge_batches.counts.refused', batch.lines_refused],
    ['recharge_batches.counts.delivered', batch.sales.delivered],
    ['recharge_batches.counts.failed', batch.sales.failed],
    ['recharge_batches.counts.in_progress', batch.sales.in_progress],
  ];
  return (
    <Box>
      <Stack direction="row" sx={{ alignItems: 'center', gap: 1 }}>
        <LinearProgress
          variant="determinate"
          value={batch.progress}
          sx={{ flex: 1, height: 8, borderRadius: 4 }}
          aria-label={translate('recharge_batches.progress', { percent: batch.progress })}
        />
        <Typography variant="body2">{translate('recharge_batches.progress', { percent: batch.progress })}</Typography>
      </Stack>
      <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 2, mt: 1 }}>
        {figures.map(([label, n]) => (
          <Typography key={label} variant="body2" color="text.secondary">
            {translate(label)}: <strong>{n}</strong>
          </Typography>
        ))}
      </Stack>
    </Box>
  );
}
