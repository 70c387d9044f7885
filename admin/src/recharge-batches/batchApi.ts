import Papa from 'papaparse';
import { MAX_BATCH_LINES, type BatchPreview, type RechargeBatchDetail, type RechargeBatchInput, type RechargeBatchResponse } from '@app/contracts';
import { apiFetch } from '../providers/http';

/**
 * Bulk sales in the console (api/src/recharge-batches): the CSV a dealer uploads, read in the
 * browser, and the calls of its screens. The CSV's columns: `phone`, `bundle` (the bundle's id or
 * h_id, as the dealer's bundles page shows it) and `client_reference` (optional).
 */
export const BATCHES_PATH = '/recharge-batches';
export type BatchLine = RechargeBatchInput['lines'][number];

export const CSV_TEMPLATE = 'phone,bundle,client_reference\n0615123456,12,order-1001\n+252 77 1234567,12,\n';

export type CsvResult = { ok: true; lines: BatchLine[] } | { ok: false; error: string; vars?: Record<string, unknown> };

/** The uploaded file's lines, or the reason it cannot be a batch (a translation key of admin.json). */
export function parseBatchCsv(text: string): CsvResult {
  const parsed = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: 'greedy',
    transformHeader: (h) => h.trim().toLowerCase(),
  });
  const fields = parsed.meta.fields ?? [];
  if (!fields.includes('phone') || !fields.includes('bundle')) return { ok: false, error: 'recharge_batches.csv_columns' };
  const rows = parsed.data;
  if (!rows.length) return { ok: false, error: 'recharge_batches.csv_empty' };
  if (rows.length > MAX_BATCH_LINES) return { ok: false, error: 'recharge_batches.csv_too_many', vars: { max: MAX_BATCH_LINES, lines: rows.length } };
  return {
    ok: true,
    lines: rows.map((r) => {
      const bundle = (r.bundle ?? '').trim();
      const reference = (r.client_reference ?? '').trim();
      return {
        phone: (r.phone ?? '').trim(),
        bundle_id: /^\d+$/.test(bundle) ? Number(bundle) : bundle,
        ...(reference ? { client_reference: reference } : {}),
      };
    }),
  };
}

export const previewBatch = async (body: RechargeBatchInput) => (await apiFetch<BatchPreview>(`${BATCHES_PATH}/preview`, { method: 'POST', body })).data;

/** The key is made once per confirmation: a retry after a lost answer gets the same batch, never a second. */
export const sendBatch = async (body: RechargeBatchInput, idempotencyKey: string) =>
  (await apiFetch<RechargeBatchResponse>(BATCHES_PATH, { method: 'POST', body, headers: { 'Idempotency-Key': idempotencyKey } })).data;

export const fetchBatches = (page: number) => apiFetch<RechargeBatchResponse[]>(BATCHES_PATH, { query: { page, per_page: 25 } });

export const fetchBatch = async (id: string, page: number) =>
  (await apiFetch<RechargeBatchDetail>(`${BATCHES_PATH}/${encodeURIComponent(id)}`, { query: { page, per_page: 50 } })).data;

/** Cancels the batch: its lines not yet sold are refused; answers the batch and the server's message. */
export const cancelBatch = (id: string) => apiFetch<RechargeBatchResponse>(`${BATCHES_PATH}/${encodeURIComponent(id)}/cancel`, { method: 'POST' });
