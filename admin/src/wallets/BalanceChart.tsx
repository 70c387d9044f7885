import { useTranslate } from 'react-admin';
import { Box, useTheme } from '@mui/material';

/**
 * The last 30 days' closing balance as a small SVG line chart (no chart library: a few dozen
 * points do not need one). Days with activity get a dot; the table below it has the figures.
 */
export function BalanceChart({ days }: { days: { date: string; balance: string; credits: string; debits: string }[] }) {
  const theme = useTheme();
  const translate = useTranslate();
  const W = 600;
  const H = 160;
  const pad = 24;
  const values = days.map((d) => Number(d.balance));
  const max = Math.max(1, ...values);
  const x = (i: number) => pad + (i * (W - 2 * pad)) / Math.max(1, days.length - 1);
  const y = (v: number) => H - pad - (v / max) * (H - 2 * pad);
  const path = values.map((v, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const label = translate('wallets.chart_label', { from: days[0]?.date ?? '', to: days.at(-1)?.date ?? '', max: max.toFixed(2) });
  return (
    <Box component="figure" sx={{ m: 0 }}>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-label={label} style={{ maxHeight: 200 }}>
        <line x1={pad} y1={H - pad} x2={W - pad} y2={H - pad} stroke={theme.palette.divider} />
        <path d={path} fill="none" stroke={theme.palette.primary.main} strokeWidth={2} />
        {days.map((d, i) => (Number(d.credits) || Number(d.debits) ? <circle key={d.date} cx={x(i)} cy={y(values[i])} r={3} fill={theme.palette.primary.main}><title>{`${d.date}: ${d.balance} (+${d.credits} / -${d.debits})`}</title></circle> : null))}
        <text x={pad} y={H - 6} fontSize="11" fill={theme.palette.text.secondary}>{days[0]?.date}</text>
        <text x={W - pad} y={H - 6} fontSize="11" textAnchor="end" fill={theme.palette.text.secondary}>{days.at(-1)?.date}</text>
        <text x={pad} y={14} fontSize="11" fill={theme.palette.text.secondary}>{max.toFixed(2)}</text>
      </svg>
    </Box>
  );
}
