import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';

const api = 'http://localhost:3000';

/**
 * The customer storefront. The API process serves the built HTML at /dealer/{code}/... (with the
 * dealer's head written in), the assets under /storefront/, and the service worker at
 * /customer-sw.js. The manifest is made per dealer by the server, so the plugin writes none.
 */
export default defineConfig({
  base: '/storefront/',
  plugins: [
    react(),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'customer-sw.ts',
      injectRegister: false,
      manifest: false,
      // The worker is served at /customer-sw.js, the files under /storefront/: the precache entries
      // name them by their full path (else they resolve to /assets/..., which is not this app).
      injectManifest: { globPatterns: ['**/*.{js,css,html,svg,woff2}'], swDest: 'dist/customer-sw.js', modifyURLPrefix: { '': '/storefront/' } },
    }),
  ],
  resolve: { dedupe: ['react', 'react-dom'] },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2020' },
  server: { proxy: { '/api': api, '/locales': api, '/storage': api, '/dealer': api } },
});
