import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { AdminContext, memoryStore, testDataProvider } from 'react-admin';
import { Chart } from './Chart';
import { testI18nProvider } from '../test/i18n';

async function wrap(ui: React.ReactNode) {
  const i18nProvider = await testI18nProvider();
  return (
    <AdminContext dataProvider={testDataProvider()} i18nProvider={i18nProvider} store={memoryStore()}>
      {ui}
    </AdminContext>
  );
}

const props = { period: 'day' as const, label: 'Revenue per day', seriesLabel: 'Revenue', currency: 'USD', empty: 'No sales in the last 30 days.' };

describe('Chart', () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('says so when there is nothing to draw, without loading the chart library', async () => {
    render(await wrap(<Chart {...props} points={[{ key: '2026-11-24', value: 0 }]} isEmpty />));
    expect(screen.getByRole('status').textContent).toBe('No sales in the last 30 days.');
    expect(screen.queryByRole('figure')).toBeNull();
    cleanup();
    render(await wrap(<Chart {...props} points={[]} />));
    expect(screen.getByText('No sales in the last 30 days.')).toBeTruthy();
  });

  it('draws the points on a date axis, loaded on demand', async () => {
    vi.stubGlobal(
      'ResizeObserver',
      class {
        observe() {}
        unobserve() {}
        disconnect() {}
      },
    );
    render(
      await wrap(
        <Chart
          {...props}
          points={[
            { key: '2026-11-23', value: 2 },
            { key: '2026-11-24', value: 5.5 },
          ]}
        />,
      ),
    );
    const figure = await screen.findByRole('figure', { name: 'Revenue per day' }, { timeout: 10_000 });
    expect(figure.querySelector('svg')).toBeTruthy();
  });
});
