import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { AdminContext, memoryStore, reactRouterProvider, TestMemoryRouter, testDataProvider, useLocation } from 'react-admin';
import { ErrorBoundary } from './ErrorBoundary';
import { ErrorPage } from '../auth/StatusPages';
import { testI18nProvider } from '../test/i18n';

const { Routes, Route } = reactRouterProvider;

function Boom(): never {
  throw new Error('render failed');
}
function Where() {
  return <div data-testid="where">{useLocation().pathname}</div>;
}

describe('route error page (docs/product.md section 2)', () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });

  it('shows the Internal Server Error page with Go Back and Back to Home', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const i18nProvider = await testI18nProvider();
    render(
      <TestMemoryRouter initialEntries={['/broken']}>
        <AdminContext dataProvider={testDataProvider()} i18nProvider={i18nProvider} store={memoryStore()}>
          <Routes>
            <Route
              path="/broken"
              element={
                <ErrorBoundary fallback={<ErrorPage />}>
                  <Boom />
                </ErrorBoundary>
              }
            />
            <Route path="*" element={<Where />} />
          </Routes>
        </AdminContext>
      </TestMemoryRouter>,
    );
    expect(await screen.findByText("Something went wrong on our servers. We're working to fix the issue.")).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Go Back' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Back to Home' }));
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/dashboard'));
  });
});
