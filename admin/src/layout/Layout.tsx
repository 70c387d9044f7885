import { Suspense, useState, type ReactNode } from 'react';
import { useLocation, useTranslate } from 'react-admin';
import { useIsFetching } from '@tanstack/react-query';
import { Box, Container, LinearProgress, useMediaQuery } from '@mui/material';
import { ErrorPage } from '../auth/StatusPages';
import { FullPageLoader } from '../common/FullPageLoader';
import { useThemeConfig } from '../theme/themeConfig';
import { TopBar } from './TopBar';
import { MOBILE_QUERY, Sidebar } from './Sidebar';
import { HorizontalMenu } from './HorizontalMenu';
import { Footer } from './Footer';
import { ScrollToTop } from './ScrollToTop';
import { ErrorBoundary } from './ErrorBoundary';
import { animationSx } from './animations';
import { useRowCheckboxLabels } from './useRowCheckboxLabels';
import { useIsWalletOwner } from '../wallets/myWallet';
import { LowBalanceBanner } from '../wallets/LowBalanceBanner';
import { LowFloatBanner } from '../routing/LowFloatBanner';
import { useCanSeeFloats } from '../routing/floats';
import { BareContext } from './bare';

/**
 * The default layout of docs/product.md section 2 around every signed-in route (inside the auth
 * guard, App.tsx): top bar, sidebar (or horizontal menu), content with route animation and error
 * page, footer, scroll-to-top and customizer. It loads on its own, after the sign-in check.
 */
export function Layout({ children }: { children?: ReactNode }) {
  const location = useLocation();
  const { config } = useThemeConfig();
  const [bare, setBare] = useState(false);
  const mobile = useMediaQuery(MOBILE_QUERY);
  const walletOwner = useIsWalletOwner();
  const seesFloats = useCanSeeFloats();
  useRowCheckboxLabels();
  const content = (
    <ErrorBoundary key={location.pathname} fallback={<ErrorPage />}>
      <Suspense fallback={<FullPageLoader />}>{children}</Suspense>
    </ErrorBoundary>
  );

  return (
    <BareContext.Provider value={setBare}>
      {bare ? (
        content
      ) : (
        <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column', bgcolor: 'background.default' }}>
          <Box
            sx={{
              display: 'flex',
              flexDirection: 'column',
              flex: 1,
              ...(config.layout === 'boxed-layout' ? { maxWidth: 1400, width: '100%', mx: 'auto', boxShadow: 2 } : {}),
            }}
          >
            <TopBar />
            {config.menu === 'horizontal' && !mobile && <HorizontalMenu />}
            {/* A dealer below its low-balance alert (admins never call /my-wallet). */}
            {walletOwner && <LowBalanceBanner />}
            {/* An aggregator's float below its threshold (no call without 'view delivery routes'). */}
            {seesFloats && <LowFloatBanner />}
            <Box sx={{ display: 'flex', flex: 1 }}>
              <Sidebar mobileOnly={config.menu === 'horizontal'} />
              <Box sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column', position: 'relative' }}>
                <FirstLoadProgress />
                <Container component="main" id="main-content" maxWidth={false} sx={{ py: 3, flex: 1, overflowX: 'auto' }}>
                  <Box key={location.pathname} sx={animationSx(config.animation)}>
                    {content}
                  </Box>
                </Container>
                <Footer />
              </Box>
            </Box>
          </Box>
          <ScrollToTop />
        </Box>
      )}
    </BareContext.Provider>
  );
}

/**
 * A bar across the top of the content while a screen's data loads for the first time (a list, a
 * record, the dashboard): the page is never blank and still on a slow link. Background refreshes
 * of data already shown do not show it.
 */
function FirstLoadProgress() {
  const translate = useTranslate();
  const loading = useIsFetching({ predicate: (query) => query.state.status === 'pending' });
  if (loading === 0) return null;
  return (
    <LinearProgress
      aria-label={translate('ra.page.loading')}
      data-testid="first-load-progress"
      sx={{ position: 'absolute', top: 0, insetInlineStart: 0, insetInlineEnd: 0, zIndex: 1 }}
    />
  );
}

export default Layout;
