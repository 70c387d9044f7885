import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { Box, ButtonBase, Chip, Collapse, Stack, Typography } from '@mui/material';
import ExpandMore from '@mui/icons-material/ExpandMore';
import type { RemoteCallResponse } from '@app/contracts';
import { useCompanyFormat } from '../common/useCompanyFormat';

// 'skipped' (a route passed over: routing lines only) is neither good nor bad news: neutral.
const OUTCOME_COLORS = { ok: 'success', refused: 'error', unknown: 'warning', skipped: 'default' } as const;
const DOT_COLORS = { ok: 'success.main', refused: 'error.main', unknown: 'warning.main', skipped: 'grey.500' } as const;
/** Vendors' names as they spell them (not translated); 'routing' is the console's own word (recharges.remote.systems). */
const SYSTEMS: Record<string, string> = {
  waafipay: 'WaafiPay',
  edahab: 'eDahab',
  reloadly: 'Reloadly',
  dtone: 'DT One',
  sandbox: 'Sandbox',
  africastalking: "Africa's Talking",
};
/** A gateway's or an aggregator's name as its vendor spells it (`edahab` → eDahab); an unknown key as it is. */
export const vendorName = (key: string): string => SYSTEMS[key] ?? key;

/** JSON pretty-printed with two spaces; anything else (a truncated or plain-text answer) as it came. */
export function prettyJson(text: string | null | undefined): string {
  if (text === null || text === undefined || text === '') return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

// Physical sides (left, pl, borderLeft) are flipped for Arabic by the RTL style plugin; code blocks
// are dir="ltr" with text-align start, which the plugin leaves alone.

/**
 * Every request to the payment gateway (WaafiPay, eDahab) and the aggregators (Reloadly, DT One,
 * the sandbox) for one sale and its answer, oldest first: when, which system, which operation, the
 * HTTP status, the outcome (ok, refused, unknown), how long it took. A line opens to the request and
 * the answer, pretty-printed, monospace and left to right (also in Arabic: it is code). Routing
 * lines (system 'routing') say which route was taken, skipped or refused and why: no request to
 * open, the explanation as their text.
 */
export function RemoteCallTimeline({ calls }: { calls: RemoteCallResponse[] }) {
  const translate = useTranslate();
  if (!calls.length) return <Typography color="text.secondary">{translate('recharges.remote.none')}</Typography>;
  return (
    <Box component="ol" sx={{ listStyle: 'none', p: 0, m: 0, borderLeft: 2, borderColor: 'divider' }} aria-label={translate('recharges.remote.title')}>
      {calls.map((c) => (
        <RemoteCallLine key={c.id} call={c} />
      ))}
    </Box>
  );
}

function RemoteCallLine({ call: c }: { call: RemoteCallResponse }) {
  if (c.system === 'routing') return <RoutingLine call={c} />;
  return <RequestLine call={c} />;
}

/** "Routing · DT One · Skipped", when, and why (the server's explanation). */
function RoutingLine({ call: c }: { call: RemoteCallResponse }) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  const aggregator = c.operation.replace(/^route\s+/, '');
  return (
    <Box component="li" sx={{ position: 'relative', pl: 2, pb: 1.5 }}>
      <Dot outcome={c.outcome} />
      <Box sx={{ p: 0.5 }}>
        <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
          <Typography variant="body2" sx={{ fontWeight: 600 }}>
            {translate('recharges.remote.systems.routing')}
          </Typography>
          <Typography variant="body2">{SYSTEMS[aggregator] ?? aggregator}</Typography>
          <Chip
            size="small"
            color={OUTCOME_COLORS[c.outcome] ?? 'default'}
            label={translate(`recharges.remote.routing_outcomes.${c.outcome}`, { _: translate(`recharges.remote.outcomes.${c.outcome}`, { _: c.outcome }) })}
          />
        </Stack>
        <Typography variant="caption" color="text.secondary" component="p">
          {fmt.preciseTime(c.created_at)}
        </Typography>
        {c.error && (
          <Typography variant="body2" color={c.outcome === 'refused' ? 'error' : 'text.secondary'} component="p" sx={{ overflowWrap: 'anywhere' }}>
            {c.error}
          </Typography>
        )}
      </Box>
    </Box>
  );
}

/** The dot on the line, coloured by outcome. */
function Dot({ outcome }: { outcome: RemoteCallResponse['outcome'] }) {
  return (
    <Box
      aria-hidden
      sx={{ position: 'absolute', left: -6, top: 10, width: 10, height: 10, borderRadius: '50%', bgcolor: DOT_COLORS[outcome] ?? 'warning.main' }}
    />
  );
}

function RequestLine({ call: c }: { call: RemoteCallResponse }) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  const [open, setOpen] = useState(false);
  const panelId = `remote-call-${c.id}`;
  return (
    <Box component="li" sx={{ position: 'relative', pl: 2, pb: 1.5 }}>
      <Dot outcome={c.outcome} />
      <ButtonBase
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        aria-controls={panelId}
        sx={{
          display: 'flex',
          width: '100%',
          justifyContent: 'space-between',
          alignItems: 'flex-start',
          textAlign: 'start',
          borderRadius: 1,
          p: 0.5,
          '&:hover': { bgcolor: 'action.hover' },
        }}
      >
        <Box sx={{ minWidth: 0 }}>
          <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {SYSTEMS[c.system] ?? c.system}
            </Typography>
            <Typography variant="body2" component="code" dir="ltr" sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
              {c.operation}
            </Typography>
            <Chip size="small" color={OUTCOME_COLORS[c.outcome] ?? 'default'} label={translate(`recharges.remote.outcomes.${c.outcome}`, { _: c.outcome })} />
          </Stack>
          <Typography variant="caption" color="text.secondary" component="p">
            {[
              fmt.preciseTime(c.created_at),
              c.http_status === null ? translate('recharges.remote.no_answer') : translate('recharges.remote.http', { status: c.http_status }),
              fmt.duration(c.duration_ms),
            ].join(' · ')}
          </Typography>
          {c.error && (
            <Typography variant="caption" color="error" component="p">
              {c.error}
            </Typography>
          )}
        </Box>
        <ExpandMore fontSize="small" sx={{ flexShrink: 0, transform: open ? 'rotate(180deg)' : 'none', transition: 'transform 150ms' }} aria-hidden />
        <Box component="span" sx={visuallyHidden}>
          {translate(open ? 'recharges.remote.hide' : 'recharges.remote.show')}
        </Box>
      </ButtonBase>
      <Collapse in={open} unmountOnExit>
        <Box id={panelId} sx={{ pt: 1 }}>
          <Typography
            variant="caption"
            color="text.secondary"
            component="p"
            dir="ltr"
            sx={{ fontFamily: 'monospace', wordBreak: 'break-all', textAlign: 'start' }}
          >
            {`${c.method} ${c.url}`}
          </Typography>
          <Code title={translate('recharges.remote.request')} text={prettyJson(c.request)} empty={translate('recharges.remote.empty')} />
          <Code title={translate('recharges.remote.response')} text={prettyJson(c.response)} empty={translate('recharges.remote.empty')} />
        </Box>
      </Collapse>
    </Box>
  );
}

function Code({ title, text, empty }: { title: string; text: string; empty: string }) {
  return (
    <Box sx={{ mt: 1 }}>
      <Typography variant="caption" sx={{ fontWeight: 600 }} component="p">
        {title}
      </Typography>
      <Box
        component="pre"
        dir="ltr"
        tabIndex={0}
        sx={{
          m: 0,
          p: 1,
          fontFamily: 'monospace',
          fontSize: 12,
          lineHeight: 1.5,
          textAlign: 'start',
          whiteSpace: 'pre',
          overflowX: 'auto',
          maxHeight: 320,
          bgcolor: 'action.hover',
          borderRadius: 1,
        }}
      >
        {text || empty}
      </Box>
    </Box>
  );
}

const visuallyHidden = { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' } as const;
