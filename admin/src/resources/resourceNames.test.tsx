import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { ListBase, RecordContextProvider, ResourceContextProvider, Resource } from 'react-admin';
import { RESOURCE_LIST } from '@app/contracts/resources';
import { renderScreen, page } from '../test/renderScreen';
import { serveRoutes } from '../test/fetchMock';
import { testI18nProvider } from '../test/i18n';
import { CONSOLE_RESOURCES } from '../console/areas';
import { TrashButton } from '../common/DoneToast';
import MissedSaleList from '../missed-sales/MissedSaleList';

/**
 * react-admin's own texts name a resource by resources.{name}.name ("No {{name}} found", "Delete
 * {{name}} {{recordRepresentation}}"); without it they print the resource's slug humanised
 * ("No Missed-sales found", "Delete internet-provider Telesom"). Every resource the console hands to
 * react-admin has a singular and a plural name in each language.
 */
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** Every resource react-admin sees: the registry's, the console's own, and those of custom lists. */
const RESOURCES = [
  ...RESOURCE_LIST.map((d) => d.name),
  ...CONSOLE_RESOURCES.map((r) => r.name),
  'missed-sales',
  'recharge-batches',
  'dealer-providers',
  'dealer-categories',
  'dealer-bundles',
  'daily-close',
  'webhook-deliveries',
  'dealer/api-keys',
  'wallet-top-up-requests',
  'user-options',
  'settings',
];

describe('resource names', () => {
  it.each(['en', 'ae', 'so'])('every resource has a singular and a plural name in %s', async (lng) => {
    const i18n = await testI18nProvider(lng);
    for (const name of RESOURCES) {
      for (const count of [0, 1, 2, 3, 11, 100]) {
        const label = i18n.translate(`resources.${name}.name`, { smart_count: count, _: 'MISSING' });
        expect(label, `${lng} resources.${name}.name (${count})`).not.toBe('MISSING');
      }
    }
  });

  it.each([
    ['so', 'Lama helin Iibka la waayay'],
    ['ae', 'لم يتم العثور على المبيعات الفائتة'],
  ])('an empty missed-sales list says so in words (%s), not "Missed-sales"', async (lng, text) => {
    serveRoutes({ 'GET /api/v1/missed-sales': () => page([]) });
    await renderScreen(<MissedSaleList />, { path: '/missed-sales', url: '/missed-sales', permissions: ['view recharges'], lng });
    await waitFor(() => expect(document.body.textContent).toContain(text), { timeout: 5000 });
    expect(document.body.textContent).not.toMatch(/missed-sales/i);
  });

  it.each([
    ['ae', 'حذف مشغّل Telesom'],
    ['so', 'Tirtir shirkad Telesom'],
  ])("a row's delete question names the kind of record (%s)", async (lng, title) => {
    serveRoutes({ 'GET /api/v1/internet-providers': () => page([]) });
    await renderScreen(
      <>
        <Resource name="internet-providers" recordRepresentation="name" />
        <ResourceContextProvider value="internet-providers">
          <ListBase resource="internet-providers">
            <RecordContextProvider value={{ id: 7, name: 'Telesom' }}>
              <TrashButton />
            </RecordContextProvider>
          </ListBase>
        </ResourceContextProvider>
      </>,
      { path: '/internet-providers', url: '/internet-providers', permissions: ['view internet providers', 'delete internet providers'], lng },
    );
    fireEvent.click(await screen.findByRole('button'));
    await waitFor(() => expect(screen.getByRole('dialog').textContent).toContain(title));
    expect(screen.getByRole('dialog').textContent).not.toMatch(/internet-provider/i);
  });
});

describe('counts and words', () => {
  it.each([
    ['en', [1, '1 sale · profit 5.00'], [2, '2 sales · profit 5.00']],
    ['so', [1, "1 iib · faa'iido 5.00"], [4, "4 iib · faa'iido 5.00"]],
  ])('a count agrees with its noun (%s)', async (lng, ...cases) => {
    const i18n = await testI18nProvider(lng);
    for (const [count, text] of cases as unknown as [number, string][]) expect(i18n.translate('dashboard.sales_line', { count, profit: '5.00' })).toBe(text);
  });

  it('Arabic counts take their six forms, not always عمليات', async () => {
    const i18n = await testI18nProvider('ae');
    const line = (count: number) => i18n.translate('dashboard.sales_line', { count, profit: '5.00' });
    expect(line(1)).toBe('عملية بيع واحدة · الربح 5.00');
    expect(line(2)).toBe('عمليتا بيع · الربح 5.00');
    expect(line(3)).toBe('3 عمليات بيع · الربح 5.00');
    expect(line(11)).toBe('11 عملية بيع · الربح 5.00');
    expect(line(100)).toBe('100 عملية بيع · الربح 5.00');
  });

  it('Arabic says وكيل for a dealer everywhere; the Somali menu is Somali', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const { resolve } = await import('node:path');
    const dir = resolve(__dirname, '../../../locales/ae');
    for (const file of readdirSync(dir)) expect(readFileSync(resolve(dir, file), 'utf8'), file).not.toContain('موزع');
    const so = await testI18nProvider('so');
    expect(so.translate('menu.dashboard')).not.toBe('Dashboard');
    expect(so.translate('ra.page.dashboard')).not.toBe('Dashboard');
  });
});
