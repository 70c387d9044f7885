import { lazy, Suspense, useEffect, useMemo, type ReactNode } from 'react';
import { BrowserRouter, Navigate, Route } from 'react-router';
import { QueryClient } from '@tanstack/react-query';
import { Admin, CustomRoutes, localStorageStore, Notification, Resource } from 'react-admin';
import { RESOURCE_LIST } from '@app/contracts/resources';
import { useI18nextProvider } from 'ra-i18n-i18next';
import i18n, { i18nOptions, isRtl, LANGUAGES } from './i18n/i18n';
import { dataProvider } from './providers/dataProvider';
import { authProvider } from './providers/authProvider';
import { ThemeConfigProvider, useThemeConfig } from './theme/themeConfig';
import { DirectionCache } from './theme/DirectionCache';
import { buildTheme } from './theme/themes';
import { Layout } from './layout/Layout';
import { useVisibleMenu } from './layout/useMenu';
import { CONSOLE_RESOURCES, ROUTES, RESOURCE_SCREENS } from './routes';
import { RecordRedirect } from './resources/RecordRedirect';
import { RouteGuard } from './auth/RouteGuard';
import { ErrorPage, NotFoundPage, UnauthorizedPage } from './auth/StatusPages';
import { useBareLayout } from './layout/Layout';
import { FullPageLoader } from './common/FullPageLoader';

/** Default query client: one retry, no refetch on window focus (docs/product.md section 9). */
const queryClient = new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });
const store = localStorageStore(undefined, 'console');
const availableLocales = LANGUAGES.map((l) => ({ locale: l.locale, name: l.name }));

// The blank-layout pages load on their own, with the form library and the shared schemas.
const LoginPage = lazy(() => import('./auth/LoginPage'));
const LockScreen = lazy(() => import('./auth/LockScreen'));
const blank = (page: ReactNode) => <Suspense fallback={<FullPageLoader />}>{page}</Suspense>;

const TopRightNotification = () => <Notification anchorOrigin={{ vertical: 'top', horizontal: 'right' }} />;

function HomeRedirect() {
  const { home } = useVisibleMenu();
  return <Navigate to={home} replace />;
}

function CatchAll() {
  useBareLayout();
  return <NotFoundPage />;
}

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
    i18n.on('languageChanged', apply);
    return () => i18n.off('languageChanged', apply);
  }, [i18nProvider, followLanguage]);

  if (!i18nProvider) return <FullPageLoader />;
  return (
    <DirectionCache direction={config.rtlClass}>
      <BrowserRouter>
        <Admin
          dataProvider={dataProvider}
          authProvider={authProvider}
          i18nProvider={i18nProvider}
          queryClient={queryClient}
          store={store}
          theme={theme}
          layout={Layout}
          loginPage={false}
          catchAll={CatchAll}
          error={ErrorPage}
          notification={TopRightNotification}
          disableTelemetry
        >
          {/* Every registry resource is a react-admin Resource, so references, record links and
              breadcrumbs work; a resource shown under another path (users at /admin and /dealers,
              roles at /settings/roles) forwards react-admin's record URL there. */}
          {RESOURCE_LIST.map((def) => {
            const List = RESOURCE_SCREENS[def.name];
            return (
              <Resource
                key={def.name}
                name={def.name}
                recordRepresentation={def.recordRepresentation}
                list={
                  List ? (
                    <RouteGuard anyOf={def.permissions.view}>
                      <List />
                    </RouteGuard>
                  ) : undefined
                }
                edit={List ? undefined : <RecordRedirect resource={def.name} />}
              />
            );
          })}
          {CONSOLE_RESOURCES.map(({ name, recordRepresentation, permissions, list: List, hasRecordPage, children = [] }) => (
            <Resource
              key={name}
              name={name}
              recordRepresentation={recordRepresentation as never}
              list={
                <RouteGuard permissions={permissions}>
                  <List />
                </RouteGuard>
              }
              show={hasRecordPage ? <RecordRedirect resource={name} /> : undefined}
            >
              {children.map(({ path, permissions: needs, screen: Screen, props }) => (
                <Route
                  key={path}
                  path={path}
                  element={
                    <RouteGuard permissions={needs}>
                      <Screen {...props} />
                    </RouteGuard>
                  }
                />
              ))}
            </Resource>
          ))}
          <CustomRoutes noLayout>
            <Route path="/auth/login" element={blank(<LoginPage />)} />
            <Route path="/auth/admin/login" element={blank(<LoginPage />)} />
            <Route path="/auth/lock-screen" element={blank(<LockScreen />)} />
            <Route path="/unauthorized" element={<UnauthorizedPage />} />
          </CustomRoutes>
          <CustomRoutes>
            <Route path="/" element={<HomeRedirect />} />
            {ROUTES.map(({ path, permissions, anyOf, userTypes, screen: Screen, props }) => (
              <Route
                key={path}
                path={path}
                element={
                  <RouteGuard permissions={permissions} anyOf={anyOf} userTypes={userTypes}>
                    <Screen {...props} />
                  </RouteGuard>
                }
              />
            ))}
          </CustomRoutes>
        </Admin>
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
