import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const api = 'http://localhost:3000';

// The API process serves admin/dist at / (with SPA fallback), so the base stays '/'.
// The shared schemas, permission catalogue and resource registry come from the
// @app/contracts workspace package (contracts/), bundled from its TypeScript source. Screens on
// the initial path import its zod-free parts (@app/contracts/resources, /permissions), so zod
// and the schemas load with the forms that need them.
export default defineConfig({
  base: '/',
  plugins: [react()],
  resolve: {
    // One copy of each: a second emotion or react-router copy breaks RTL caching and routing.
    dedupe: ['react', 'react-dom', 'react-router', '@emotion/react', '@mui/material', 'i18next', 'react-i18next'],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: { '/api': api, '/locales': api, '/storage': api },
  },
});
