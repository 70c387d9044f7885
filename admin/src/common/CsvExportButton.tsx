import { useState } from 'react';
import { useListContext, useNotify, useTranslate } from 'react-admin';
import { Button } from '@mui/material';
import DownloadIcon from '@mui/icons-material/DownloadOutlined';
import type { Query } from '../providers/http';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useCompanyFormat } from './useCompanyFormat';
import { serverMessage } from '../providers/errors';

const ACCEPT = { csv: 'text/csv', pdf: 'application/pdf' } as const;

/**
 * Downloads a file endpoint (CSV or PDF) with the given query as `fileName`, with the session's
 * headers (a plain link would carry no bearer token).
 */
export function FileDownloadButton({ path, query, fileName, format }: { path: string; query: Query; fileName: string; format: keyof typeof ACCEPT }) {
  const translate = useTranslate();
  const notify = useNotify();
  const dataProvider = useConsoleDataProvider();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      const { data: file } = await dataProvider.exportFile({ path, query, accept: ACCEPT[format] });
      const url = URL.createObjectURL(file);
      const a = document.createElement('a');
      a.href = url;
      a.download = fileName;
      a.click();
      URL.revokeObjectURL(url);
    } catch (e) {
      // The server's reason when it gave one (a refused period, a missing permission...), else the generic text.
      const said = (e as { body?: { message?: string } })?.body?.message;
      notify(said ? serverMessage(e) : translate('common.export_failed'), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button startIcon={<DownloadIcon />} onClick={download} disabled={busy}>
      {translate(`common.export_${format}`)}
    </Button>
  );
}

/** Downloads a CSV endpoint with the given query as `fileName` (default `${filename}-{company day}.csv`). */
export function CsvDownloadButton({ path, query, filename, fileName }: { path: string; query: Query; filename?: string; fileName?: string }) {
  const { companyDay } = useCompanyFormat();
  // The company's day, as the file's times (not the browser's UTC date).
  return <FileDownloadButton path={path} query={query} format="csv" fileName={fileName ?? `${filename ?? 'export'}-${companyDay(0)}.csv`} />;
}

/** Downloads `${path}` (a CSV endpoint) with the surrounding list's current filters. */
export function CsvExportButton({ path, filename }: { path: string; filename: string }) {
  const { filterValues } = useListContext();
  return <CsvDownloadButton path={path} query={filterValues as Query} filename={filename} />;
}
