import { useEffect, useRef, useState } from 'react';
import { useLocaleState } from 'react-admin';
import { Box, useTheme } from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import { LineChart } from '@mui/x-charts/LineChart';
import { formatKey, formatMoney, formatTick, intlLang, labelEvery, valueDomain } from './chartFormat';
import type { ChartProps } from './Chart';

/**
 * The chart library's part of <Chart> (loaded on demand): a column chart of one amount per day,
 * week or month, a line chart of a balance, or horizontal bars per provider, bundle or dealer.
 * Dates on the x axis in the user's language, a few amounts on the value axis, a tooltip per
 * point, mirrored in right-to-left (time runs from the right, amounts on the right).
 */
export default function SeriesChart({ points, period, kind = 'bar', label, seriesLabel, currency, height = 240 }: ChartProps) {
  const theme = useTheme();
  const [locale] = useLocaleState();
  const lang = intlLang(locale);
  const rtl = theme.direction === 'rtl';
  const width = useWidth();
  const keys = points.map((p) => p.key);
  const values = points.map((p) => p.value);
  // '-150.00 USD' stays one left-to-right run in an Arabic tooltip.
  const money = (v: number | null) => (rtl && v !== null ? `\u2066${formatMoney(v, currency)}\u2069` : formatMoney(v, currency));
  const tick = (v: number) => formatTick(v, lang);
  // A label every `every` points, counted back from the last (today's is always labelled): as
  // many as the width holds without overlapping, in either direction.
  const every = labelEvery(points.length, width.value - 60, period === 'month' ? 64 : 58);
  // By key, not by index: the library numbers the ticks it kept, not the points.
  const position = new Map(keys.map((k, i) => [k, i]));
  const shown = (key: string) => (points.length - 1 - (position.get(key) ?? 0)) % every === 0;
  const category = {
    id: 'keys',
    data: keys,
    valueFormatter: (key: string, ctx: { location: string }) => formatKey(key, period, lang, ctx.location === 'tick' ? 'tick' : 'tooltip'),
  };
  const [min, max] = valueDomain(values);
  const value = { id: 'values', tickNumber: 4, valueFormatter: (v: number) => tick(v), min, max };
  const common = {
    height,
    skipAnimation: true,
    hideLegend: true,
    grid: period === 'category' ? { vertical: true } : { horizontal: true },
    // Room for half of the first and the last date label beside the plot.
    margin: { top: 8, bottom: 0, left: rtl ? 34 : 4, right: rtl ? 4 : 34 },
    localeText: { noData: '' },
  };
  let chart;
  if (period === 'category') {
    // Long names (bundles, dealers): one horizontal bar each, the name on the band axis.
    chart = (
      <BarChart
        {...common}
        height={Math.max(120, 36 * points.length + 40)}
        layout="horizontal"
        yAxis={[{ ...category, scaleType: 'band', position: rtl ? 'right' : 'left', width: Math.round(Math.min(160, Math.max(80, width.value * 0.28))) }]}
        xAxis={[{ ...value, reverse: rtl, height: 28 }]}
        series={[{ data: values, label: seriesLabel, valueFormatter: money, color: theme.palette.primary.main }]}
      />
    );
  } else if (kind === 'line') {
    chart = (
      <LineChart
        {...common}
        xAxis={[{ ...category, scaleType: 'point', reverse: rtl, height: 28, tickInterval: shown, tickLabelInterval: shown }]}
        yAxis={[{ ...value, position: rtl ? 'right' : 'left', width: 'auto' }]}
        series={[{ data: values, label: seriesLabel, valueFormatter: money, color: theme.palette.primary.main, showMark: points.length <= 1, curve: 'linear' }]}
      />
    );
  } else {
    chart = (
      <BarChart
        {...common}
        xAxis={[{ ...category, scaleType: 'band', reverse: rtl, height: 28, tickInterval: shown, tickLabelInterval: shown, categoryGapRatio: 0.3 }]}
        yAxis={[{ ...value, position: rtl ? 'right' : 'left', width: 'auto' }]}
        series={[{ data: values, label: seriesLabel, valueFormatter: money, color: theme.palette.primary.main }]}
        borderRadius={3}
      />
    );
  }
  return (
    <Box ref={width.ref} component="figure" role="figure" aria-label={label} sx={{ m: 0, width: '100%', minWidth: 0, overflow: 'hidden' }}>
      {chart}
    </Box>
  );
}

/** The width of an element, followed as it changes (a phone turned, the sidebar opened). */
function useWidth() {
  const ref = useRef<HTMLElement | null>(null);
  const [value, setValue] = useState(600);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    setValue(el.clientWidth || 600);
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setValue(el.clientWidth || 600));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return { ref, value };
}
