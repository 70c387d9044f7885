import { formatMinor } from '@app/contracts';

/**
 * How a log entry's `before`/`after` read. The API stores each record's snapshot as its columns
 * (api/src/platform/resource-service.ts: `cost_price: 70`, money in minor units), so the console
 * names each known field in the user's language (logs.field_names.*), writes money fields as major
 * units with the company's currency ("0.70 USD") and status-like words through logs.values.*.
 * An unknown field gets a humanised label ("sort_order" -> "Sort order").
 */
export const MONEY_FIELDS: ReadonlySet<string> = new Set([
  'cost_price',
  'selling_price',
  'price',
  'dealer_price',
  'custom_price',
  'amount',
  'amount_after',
  'previous_amount',
  'delivered_amount',
  'gateway_amount',
  'balance',
  'balance_before',
  'balance_after',
  'cost',
  'profit',
  'profit_after',
  'margin',
  'starter_margin',
  'fixed_profit',
  'aggregator_cost',
  'aggregator_discount',
  'aggregator_fee',
  'low_balance_threshold',
  'threshold',
]);

/** Fields whose values are words of the product (statuses, models, kinds), translated through logs.values.*. */
const WORD_FIELDS: ReadonlySet<string> = new Set(['status', 'pricing_model', 'user_type', 'type', 'payment_status', 'delivery_status', 'outcome']);

/** "cost_price" -> "Cost price"; "dealerCode" -> "Dealer code". */
export function humaniseField(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_.-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words[0].toUpperCase() + words.slice(1) : key;
}

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** A field's label in the user's language. */
export const fieldLabel = (translate: Translate, key: string): string => translate(`logs.field_names.${key}`, { _: humaniseField(key) });

/** A minor-units amount as stored (70, "70"); null when the value is not one (already "0.70", text). */
function minorUnits(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return null;
}

/** A field's value as words: money in major units with the currency, yes/no, product words translated. */
export function fieldValue(translate: Translate, key: string, v: unknown, currency: string): string {
  if (v === undefined) return '';
  if (v === null || v === '') return '—';
  if (MONEY_FIELDS.has(key)) {
    const minor = minorUnits(v);
    if (minor !== null) return `${formatMinor(minor)} ${currency}`;
  }
  if (typeof v === 'boolean') return translate(v ? 'ra.boolean.true' : 'ra.boolean.false');
  if (typeof v === 'string' && WORD_FIELDS.has(key)) return translate(`logs.values.${v}`, { _: humaniseField(v) });
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
