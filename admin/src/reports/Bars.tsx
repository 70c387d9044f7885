import { Box, useTheme } from '@mui/material';

/** A small SVG bar chart of one figure per row (a few dozen bars need no chart library). */
export function Bars({ rows, label }: { rows: { label: string; value: number }[]; label: string }) {
  const theme = useTheme();
  const W = 640;
  const H = 180;
  const pad = 20;
  const max = Math.max(1, ...rows.map((r) => r.value));
  const w = rows.length ? (W - 2 * pad) / rows.length : 0;
  return (
    <Box component="figure" sx={{ m: 0 }}>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-label={label} style={{ maxHeight: 220 }}>
        <line x1={pad} y1={H - pad} x2={W - pad} y2={H - pad} stroke={theme.palette.divider} />
        {rows.map((r, i) => {
          const h = (r.value / max) * (H - 2 * pad);
          return (
            <rect key={r.label + i} x={pad + i * w + w * 0.15} y={H - pad - h} width={Math.max(1, w * 0.7)} height={h} fill={theme.palette.primary.main}>
              <title>{`${r.label}: ${r.value.toFixed(2)}`}</title>
            </rect>
          );
        })}
        <text x={pad} y={14} fontSize="11" fill={theme.palette.text.secondary}>{max.toFixed(2)}</text>
      </svg>
    </Box>
  );
}
