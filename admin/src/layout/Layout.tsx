import { createContext, Suspense, useContext, useLayoutEffect, useState, type ReactNode } from 'react';
import { useLocation } from 'react-admin';
import { Box, Container, useMediaQuery } from '@mui/material';
import { AuthGuard } from '../auth/AuthGuard';
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

/** A page inside the layout that wants the blank layout (the not-found page) says so here. */
const BareContext = createContext<(bare: boolean) => void>(() => undefined);
export function useBareLayout() {
  const setBare = useContext(BareContext);
  useLayoutEffect(() => {
    setBare(true);
    return () => setBare(false);
  }, [setBare]);
}

/**
 * The default layout of docs/product.md section 2 around every signed-in route: auth guard, top bar,
 * sidebar (or horizontal menu), content with route animation and error page, footer,
 * scroll-to-top and customizer.
 */
export function Layout({ children }: { children?: ReactNode }) {
  const location = useLocation();
  const { config } = useThemeConfig();
  const [bare, setBare] = useState(false);
  const mobile = useMediaQuery(MOBILE_QUERY);
  const walletOwner = useIsWalletOwner();
  useRowCheckboxLabels();
  const content = (
    <ErrorBoundary key={location.pathname} fallback={<ErrorPage />}>
      <Suspense fallback={<FullPageLoader />}>{children}</Suspense>
    </ErrorBoundary>
  );

  return (
    <AuthGuard>
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
              <Box sx={{ display: 'flex', flex: 1 }}>
                <Sidebar mobileOnly={config.menu === 'horizontal'} />
                <Box sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' }}>
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
    </AuthGuard>
  );
}
