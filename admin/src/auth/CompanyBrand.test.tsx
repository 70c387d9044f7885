import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { AdminContext, memoryStore, TestMemoryRouter, testDataProvider } from 'react-admin';
import { TopBar } from '../layout/TopBar';
import { PageTitle } from '../common/PageTitle';
import { ThemeConfigProvider } from '../theme/themeConfig';
import { dataProvider } from '../providers/dataProvider';
import { testI18nProvider } from '../test/i18n';
import { serveRoutes } from '../test/fetchMock';
import { clearSession, startSession } from '../providers/session';

/** The company's name and logo (company settings) in the console's top bar and the browser's title. */
async function renderTopBar(settings: Record<string, unknown>) {
  serveRoutes({ 'GET /api/v1/settings/public': () => ({ body: { success: true, data: settings } }) });
  startSession('t', { id: 1, name: 'A', email: 'a@x.so', user_type: 'admin', permissions: [{ name: 'view dashboard' }] }, false);
  const i18nProvider = await testI18nProvider('en');
  return render(
    <TestMemoryRouter initialEntries={['/dashboard']}>
      <ThemeConfigProvider>
        <AdminContext dataProvider={{ ...testDataProvider(), ...dataProvider }} i18nProvider={i18nProvider} store={memoryStore()}>
          <TopBar />
          <PageTitle title="Recharges" />
        </AdminContext>
      </ThemeConfigProvider>
    </TestMemoryRouter>,
  );
}

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the company in the header and the title', () => {
  it('shows the company’s logo and name and titles the page "page | company"', async () => {
    const { container } = await renderTopBar({
      company_name: 'Hormuud Data Shop',
      logo: '/uploads/logos/shop.png',
      currency: 'USD',
      timezone: 'Africa/Mogadishu',
      footer_text: null,
    });
    expect(await screen.findByText('Hormuud Data Shop')).toBeTruthy();
    expect(container.querySelector('img[src="/uploads/logos/shop.png"]')).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('Recharges | Hormuud Data Shop'));
  });

  it('without a logo: the name alone', async () => {
    const { container } = await renderTopBar({ company_name: 'Golis Bundles', logo: null, currency: 'USD', timezone: 'Africa/Mogadishu', footer_text: null });
    expect(await screen.findByText('Golis Bundles')).toBeTruthy();
    expect(container.querySelector('a[href="/dashboard"] img, a[href="#/dashboard"] img')).toBeNull();
    expect(screen.getByRole('link', { name: 'Golis Bundles · Home page' })).toBeTruthy();
  });
});
