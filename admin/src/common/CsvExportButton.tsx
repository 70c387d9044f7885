import { useState } from 'react';
import { useListContext, useNotify, useTranslate } from 'react-admin';
import { Button } from '@mui/material';
import DownloadIcon from '@mui/icons-material/DownloadOutlined';
import { buildUrl, requestHeaders, type Query } from '../providers/http';

/** Downloads `${path}` (a CSV endpoint) with the list's current filters. */
export function CsvExportButton({ path, filename }: { path: string; filename: string }) {
  const { filterValues } = useListContext();
  const translate = useTranslate();
  const notify = useNotify();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      const headers = requestHeaders(true);
      headers.set('Accept', 'text/csv');
      const res = await fetch(buildUrl(path, filterValues as Query), { headers });
      if (!res.ok) throw new Error(translate('common.export_failed'));
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement('a');
      a.href = url;
      a.download = `${filename}-${new Date().toISOString().slice(0, 10)}.csv`;
      a.click();
      URL.revokeObjectURL(url);
    } catch (e) {
      notify((e as Error).message, { type: 'error' });
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
