import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const api = 'http://localhost:3000';

// The API process serves admin/dist at / (with SPA fallback), so the base stays '/'.
// '@api' reaches the shared zod schemas in api/src: the console imports them, never copies them.
export default defineConfig({
  base: '/',
  plugins: [react()],
  resolve: {
    alias: { '@api': fileURLToPath(new URL('../api/src', import.meta.url)) },
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
