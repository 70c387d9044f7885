import { useMemo } from 'react';
import { useGetList, useTranslate } from 'react-admin';
import { Autocomplete, Box, Chip, TextField, Typography, createFilterOptions } from '@mui/material';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { isolate, ltr } from '../common/Ltr';
import { moneyText, type Aggregator, type AggregatorProduct, type RouteHealth } from './types';

/** An aggregator's name in the user's language (catalogue.adapters.*). */
export function useAggregatorName() {
  const translate = useTranslate();
  return (a: string) => translate(`catalogue.adapters.${a}`, { _: a });
}

/**
 * A route's health: healthy; failing (its refusals or timeouts counted); or resting until a time,
 * when sales pass it over. The last failure, when there is one, is the chip's tooltip and is said
 * under it by the caller (`lastFailureText`).
 */
export function HealthChip({ health }: { health: RouteHealth | null }) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  if (!health) return <Chip size="small" variant="outlined" label={translate('routing.health.new')} />;
  const label =
    health.state === 'healthy'
      ? translate('routing.health.healthy')
      : health.state === 'failing'
        ? translate('routing.health.failing', { failures: health.failures })
        : translate('routing.health.skipped', { time: fmt.dateTime(health.skipped_until) });
  const color = health.state === 'healthy' ? 'success' : health.state === 'failing' ? 'warning' : 'error';
  return <Chip size="small" color={color} variant={health.state === 'healthy' ? 'outlined' : 'filled'} label={label} />;
}

/** "Last failure, 26 Nov 2026, 10:02: the aggregator timed out", or null. */
export function useLastFailureText() {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  return (health: RouteHealth | null): string | null =>
    health?.last_failure ? translate('routing.last_failure', { time: fmt.dateTime(health.last_failure_at), error: isolate(health.last_failure) }) : null;
}

/** The synced active products of one aggregator for one operator (at most 100: one operator's list). */
export function useOperatorProducts(aggregator: Aggregator, operatorId: string) {
  const valid = /^\d{1,18}$/.test(operatorId.trim());
  const { data } = useGetList<AggregatorProduct>(
    'aggregator-catalogue',
    {
      filter: { aggregator, operator_id: operatorId.trim(), status: 'active' },
      pagination: { page: 1, perPage: 100 },
      sort: { field: 'product_id', order: 'ASC' },
    },
    { enabled: valid, staleTime: 60_000 },
  );
  return valid ? (data ?? []) : [];
}

const filter = createFilterOptions<AggregatorProduct>({ stringify: (p) => `${p.product_id} ${p.name} ${p.description ?? ''}` });

/**
 * One cell of the bundles × routes table: the product a bundle is sold as on a route, typed (a
 * product id, or an amount such as 5.00) or picked from the aggregator's synced products for the
 * route's operator (name, amount and our cost shown). Under it, the product it names, or a warning
 * when the synced catalogue does not have it.
 */
export function ProductField({
  value,
  onChange,
  aggregator,
  operatorId,
  label,
  error,
  disabled,
}: {
  value: string;
  onChange: (value: string) => void;
  aggregator: Aggregator;
  /** The route's operator id: its synced products are offered (one query per route, shared by its cells). */
  operatorId: string;
  /** The accessible name: "1 GB Daily on DT One". */
  label: string;
  error?: string;
  disabled?: boolean;
}) {
  const translate = useTranslate();
  const products = useOperatorProducts(aggregator, operatorId);
  const trimmed = value.trim();
  const match = useMemo(() => products.find((p) => p.product_id === trimmed) ?? null, [products, trimmed]);
  // Amounts and names isolated: the line reads the same in Arabic (right to left).
  const line = (p: AggregatorProduct) =>
    [
      ltr(moneyText(p.amount, p.currency)),
      p.wholesale !== null ? translate('routing.our_cost_short', { amount: ltr(moneyText(p.wholesale, p.currency)) }) : null,
    ]
      .filter(Boolean)
      .join(' · ');
  const helper = error
    ? error
    : match
      ? `${isolate(match.name)} · ${line(match)}`
      : trimmed && products.length
        ? translate('routing.not_in_catalogue')
        : undefined;
  return (
    <Autocomplete<AggregatorProduct, false, false, true>
      freeSolo
      size="small"
      disabled={disabled}
      options={products}
      filterOptions={filter}
      value={match ?? (value || null)}
      inputValue={value}
      getOptionLabel={(o) => (typeof o === 'string' ? o : o.product_id)}
      isOptionEqualToValue={(o, v) => o.product_id === (typeof v === 'string' ? v : v.product_id)}
      onInputChange={(_, v) => onChange(v)}
      onChange={(_, v) => onChange(typeof v === 'string' ? v : (v?.product_id ?? ''))}
      renderOption={({ key, ...props }, o) => (
        <Box component="li" key={key} {...props} sx={{ display: 'block !important' }}>
          <Typography variant="body2">
            <bdi>{o.name}</bdi>
          </Typography>
          <Typography variant="caption" color="text.secondary" component="div">
            {`${ltr(o.product_id)} · ${line(o)}`}
          </Typography>
        </Box>
      )}
      renderInput={(params) => (
        <TextField
          {...params}
          placeholder={translate(`routing.product_hint.${aggregator}`)}
          error={!!error}
          helperText={helper}
          slotProps={{
            ...params.slotProps,
            htmlInput: { ...params.slotProps.htmlInput, 'aria-label': label },
            formHelperText: { sx: { mx: 0, color: !error && !match && trimmed && products.length ? 'warning.main' : undefined } },
          }}
        />
      )}
      sx={{ minWidth: 170 }}
    />
  );
}
