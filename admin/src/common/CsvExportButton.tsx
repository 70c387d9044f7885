import { useState } from 'react';
import { useListContext, useNotify, useTranslate } from 'react-admin';
import { Button } from '@mui/material';
import DownloadIcon from '@mui/icons-material/DownloadOutlined';
import type { Query } from '../providers/http';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { useCompanyFormat } from './useCompanyFormat';

/** Downloads a CSV endpoint with the given query as `fileName` (default `${filename}-{company day}.csv`). */
export function CsvDownloadButton({ path, query, filename, fileName }: { path: string; query: Query; filename?: string; fileName?: string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const { companyDay } = useCompanyFormat();
  const dataProvider = useConsoleDataProvider();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      const { data: file } = await dataProvider.exportCsv({ path, query });
      const url = URL.createObjectURL(file);
      const a = document.createElement('a');
      a.href = url;
      // The company's day, as the file's times (not the browser's UTC date).
      a.download = fileName ?? `${filename ?? 'export'}-${companyDay(0)}.csv`;
      a.click();
      URL.revokeObjectURL(url);
    } catch {
      notify(translate('common.export_failed'), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button startIcon={<DownloadIcon />} onClick={download} disabled={busy}>
      {translate('common.export_csv')}
    </Button>
  );
}

/** Downloads `${path}` (a CSV endpoint) with the surrounding list's current filters. */
export function CsvExportButton({ path, filename }: { path: string; filename: string }) {
  const { filterValues } = useListContext();
  return <CsvDownloadButton path={path} query={filterValues as Query} filename={filename} />;
}
