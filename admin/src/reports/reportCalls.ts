import type { Query } from '../providers/http';
import { consoleFetch } from '../providers/rest';

/** The reports' figures (their CSVs are files: restProvider.exportCsv). */
export const reportCalls = {
  /** GET /reports/{name} (sales, dealer-profit, margins) with its filters. */
  async report<T = unknown>(name: 'sales' | 'dealer-profit' | 'margins', params: { filter: Query }): Promise<{ data: T }> {
    return { data: (await consoleFetch<T>(`/reports/${name}`, { query: params.filter })).data };
  },
};
