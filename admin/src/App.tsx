import { lazy, Suspense, useEffect, useMemo, type ComponentType, type ReactNode } from 'react';
import { BrowserRouter, Navigate, Route } from 'react-router';
import { QueryClient } from '@tanstack/react-query';
import { CssBaseline, useMediaQuery, type Theme } from '@mui/material';
import { AdminContext, CoreAdminUI, CustomRoutes, localStorageStore, Notification, Resource } from 'react-admin';
import { RESOURCE_LIST } from '@app/contracts/resources';
import { useI18nextProvider } from 'ra-i18n-i18next';
import i18n, { i18nOptions, isRtl, LANGUAGES } from './i18n/i18n';
import { dataProvider } from './providers/dataProvider';
import { authProvider } from './providers/authProvider';
import { ThemeConfigProvider, useThemeConfig } from './theme/themeConfig';
import { DirectionCache } from './theme/DirectionCache';
import { buildTheme } from './theme/themes';
import { CONSOLE_RESOURCES, PAGES, REGISTRY_LISTS, guardPath } from './console/areas';
import { RecordRedirect } from './resources/RecordRedirect';
import { PageGuard } from './auth/PageGuard';
import { AuthGuard } from './auth/AuthGuard';
import { useSignInState } from './auth/useSignInState';
import { followSession } from './auth/sessionQueries';
import { useBareLayout } from './layout/bare';
import { FullPageLoader } from './common/FullPageLoader';

/** Default query client: one retry, no refetch on window focus (docs/product.md section 9). */
const queryClient = new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });
followSession(queryClient);
const store = localStorageStore(undefined, 'console');
const availableLocales = LANGUAGES.map((l) => ({ locale: l.locale, name: l.name }));

// What the console loads first is what every screen needs: React, MUI's theme, react-admin's
// contexts and routes, i18n and the providers. The rest loads when shown: the blank-layout pages
// (with the form library and the shared schemas), the layout (top bar, menus, customizer; after
// the sign-in check), every screen (each area's index.ts, console/areas.ts) and the status pages. react-admin's <Admin> is
// spelled out (AdminContext + CoreAdminUI) so that its default pages (login form, layout,
// not-found...) are not bundled.
const LoginPage = lazy(() => import('./auth/LoginPage'));
const LockScreen = lazy(() => import('./auth/LockScreen'));
const TwoFactorSetupPage = lazy(() => import('./auth/TwoFactorSetupPage'));
const ForgotPasswordPage = lazy(() => import('./auth/ForgotPasswordPage'));
const ResetPasswordPage = lazy(() => import('./auth/ResetPasswordPage'));
const loadLayout = () => import('./layout/Layout');
const ConsoleLayoutBody = lazy(loadLayout);
const HomeRedirect = lazy(() => import('./layout/HomeRedirect'));
const statusPage = (name: 'ErrorPage' | 'NotFoundPage' | 'UnauthorizedPage') => lazy(() => import('./auth/StatusPages').then((m) => ({ default: m[name] })));
const ErrorPage = statusPage('ErrorPage');
const NotFoundPage = statusPage('NotFoundPage');
const UnauthorizedPage = statusPage('UnauthorizedPage');
const AuthenticationError = lazy(() => import('./auth/raPages').then((m) => ({ default: m.AuthenticationError })));

const blank = (page: ReactNode) => <Suspense fallback={<FullPageLoader />}>{page}</Suspense>;
const suspended = (Page: ComponentType) =>
  function Suspended() {
    return blank(<Page />);
  };

/**
 * Toasts at the top right on wide screens; on a phone near the bottom, off the top bar and the forms'
 * close buttons, and raised above the Save and Cancel bar a form drawer has at its foot.
 */
function ConsoleNotification() {
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('md'));
  return phone ? (
    <Notification anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }} sx={{ bottom: `${PHONE_TOAST_LIFT}px` }} />
  ) : (
    <Notification anchorOrigin={{ vertical: 'top', horizontal: 'right' }} />
  );
}
/** A form drawer's toolbar on a phone is 64 px high with its padding: the toast sits above it. */
const PHONE_TOAST_LIFT = 88;

/** Every signed-in route: the auth guard first (no layout is loaded for a visitor sent to the sign-in page), then the layout. */
function ConsoleLayout({ children }: { children?: ReactNode }) {
  const isAuthenticated = useSignInState() !== 'signed-out';
  // A signed-in visitor's layout loads while the guard checks the session, not after it.
  useEffect(() => {
    if (isAuthenticated) void loadLayout();
  }, [isAuthenticated]);
  return (
    <AuthGuard>
      <Suspense fallback={<FullPageLoader />}>
        <ConsoleLayoutBody>{children}</ConsoleLayoutBody>
      </Suspense>
    </AuthGuard>
  );
}

function CatchAll() {
  useBareLayout();
  return <NotFoundPage />;
}

const Loading = () => <FullPageLoader />;
const ConsoleError = suspended(ErrorPage);
/**
 * A list or form react-admin refuses (its canAccess said no after the page's own guard let the user
 * in: the trash with no tab the user may read) ends where every refusal does, on /unauthorized.
 */
const ConsoleAccessDenied = () => <Navigate to="/unauthorized" replace />;
const ConsoleAuthenticationError = suspended(AuthenticationError);

function ConsoleAdmin() {
  const i18nProvider = useI18nextProvider({ i18nextInstance: i18n, options: i18nOptions, availableLocales });
  const { config, isDarkMode, followLanguage } = useThemeConfig();
  const theme = useMemo(() => buildTheme(isDarkMode, config.rtlClass), [isDarkMode, config.rtlClass]);

  // The language decides the direction: ae is right-to-left, en and so are not (docs/product.md section 4).
  // A direction picked in the customizer stays until the language changes.
  useEffect(() => {
    if (!i18nProvider) return;
    const apply = (lng: string) => {
      followLanguage(lng, isRtl(lng) ? 'rtl' : 'ltr');
      document.documentElement.lang = lng === 'ae' ? 'ar' : lng;
    };
    apply(i18n.language);
    // Answers carry words in the reader's language (a dealer's catalogue names, the server's
    // messages): what is on screen is asked again in the new one.
    const askAgain = () => void queryClient.invalidateQueries();
    i18n.on('languageChanged', apply);
    i18n.on('languageChanged', askAgain);
    return () => {
      i18n.off('languageChanged', apply);
      i18n.off('languageChanged', askAgain);
    };
  }, [i18nProvider, followLanguage]);

  if (!i18nProvider) return <FullPageLoader />;
  return (
    <DirectionCache direction={config.rtlClass}>
      <BrowserRouter>
        <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={i18nProvider} queryClient={queryClient} store={store} theme={theme}>
          <CssBaseline enableColorScheme>
            <CoreAdminUI
              layout={ConsoleLayout}
              loginPage={false}
              catchAll={CatchAll}
              error={ConsoleError}
              loading={Loading}
              accessDenied={ConsoleAccessDenied}
              authenticationError={ConsoleAuthenticationError}
              disableTelemetry
            >
              {/* Every registry resource is a react-admin Resource, so references, record links and
                  breadcrumbs work; a resource shown under another path (users at /admin and /dealers,
                  roles at /settings/roles) forwards react-admin's record URL there. The screens and
                  who opens them come from the areas' index.ts files (console/areas.ts). */}
              {RESOURCE_LIST.map((def) => {
                const List = REGISTRY_LISTS[def.name];
                return (
                  <Resource
                    key={def.name}
                    name={def.name}
                    recordRepresentation={def.recordRepresentation}
                    list={
                      List ? (
                        <PageGuard path={`/${def.name}`}>
                          <List />
                        </PageGuard>
                      ) : undefined
                    }
                    edit={List ? undefined : <RecordRedirect resource={def.name} />}
                  />
                );
              })}
              {CONSOLE_RESOURCES.map(({ name, recordRepresentation, list: List, hasRecordPage, children = [] }) => (
                <Resource
                  key={name}
                  name={name}
                  recordRepresentation={recordRepresentation as never}
                  list={
                    <PageGuard path={`/${name}`}>
                      <List />
                    </PageGuard>
                  }
                  show={hasRecordPage ? <RecordRedirect resource={name} /> : undefined}
                >
                  {children.map(({ path, screen: Screen, props }) => (
                    <Route
                      key={path}
                      path={path}
                      element={
                        <PageGuard path={guardPath(`/${name}/${path}`)}>
                          <Screen {...props} />
                        </PageGuard>
                      }
                    />
                  ))}
                </Resource>
              ))}
              <CustomRoutes noLayout>
                <Route path="/auth/login" element={blank(<LoginPage />)} />
                <Route path="/auth/admin/login" element={blank(<LoginPage />)} />
                <Route path="/auth/lock-screen" element={blank(<LockScreen />)} />
                <Route path="/auth/two-factor-setup" element={blank(<TwoFactorSetupPage />)} />
                <Route path="/auth/forgot-password" element={blank(<ForgotPasswordPage />)} />
                <Route path="/auth/reset-password" element={blank(<ResetPasswordPage />)} />
                <Route path="/unauthorized" element={blank(<UnauthorizedPage />)} />
              </CustomRoutes>
              <CustomRoutes>
                <Route path="/" element={<HomeRedirect />} />
                {PAGES.map(({ path, screen: Screen, props }) => (
                  <Route
                    key={path}
                    path={path}
                    element={
                      <PageGuard path={guardPath(path)}>
                        <Screen {...props} />
                      </PageGuard>
                    }
                  />
                ))}
              </CustomRoutes>
            </CoreAdminUI>
            <ConsoleNotification />
          </CssBaseline>
        </AdminContext>
      </BrowserRouter>
    </DirectionCache>
  );
}

export default function App() {
  return (
    <ThemeConfigProvider>
      <ConsoleAdmin />
    </ThemeConfigProvider>
  );
}
