import { lazy, Suspense } from 'react';
import { Box, Skeleton, Typography } from '@mui/material';
import type { Period } from './chartFormat';

export interface ChartProps {
  /** One value per key: a company day ('2026-11-24'), week (its Monday), month ('2026-11') or a name (period 'category'). */
  points: { key: string; value: number }[];
  period: Period;
  kind?: 'bar' | 'line';
  /** What the chart shows, for screen readers. */
  label: string;
  /** The value's name in the tooltip ('Revenue'). */
  seriesLabel: string;
  currency: string;
  height?: number;
  /** Shown instead of the chart when there is nothing to draw. */
  empty: string;
  /** True when the points are all there but say nothing (every day 0, no activity). */
  isEmpty?: boolean;
}

// The chart library loads with the first chart drawn, not with the console.
const SeriesChart = lazy(() => import('./SeriesChart'));

/** A chart of one amount over days, weeks, months or names; a sentence when there is nothing to show. */
export function Chart(props: ChartProps) {
  const height = props.period === 'category' ? Math.max(120, 36 * props.points.length + 40) : (props.height ?? 240);
  if (!props.points.length || props.isEmpty) {
    return (
      <Box
        role="status"
        data-testid="chart-empty"
        sx={{
          minHeight: 96,
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'center',
          border: 1,
          borderStyle: 'dashed',
          borderColor: 'divider',
          borderRadius: 1,
          px: 2,
          textAlign: 'center',
        }}
      >
        <Typography color="text.secondary">{props.empty}</Typography>
      </Box>
    );
  }
  return (
    <Suspense fallback={<Skeleton variant="rounded" height={height} aria-label={props.label} />}>
      <SeriesChart {...props} />
    </Suspense>
  );
}
