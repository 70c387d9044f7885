import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const api = 'http://localhost:3000';

/**
 * react-admin's router adapter (ra-core's routing/adapters/reactRouterProvider.js) imports
 * react-router's data router (createHashRouter, RouterProvider) for an app that brings no router of
 * its own. The console always brings one (BrowserRouter, App.tsx), so that code, about 16 KB gzip of
 * the initial JavaScript, never runs: in the build, that one file gets react-router with those two
 * replaced by a function that says so.
 */
function raCoreWithoutDataRouter(): Plugin {
  const adapter = /[\\/]ra-core[\\/]dist[\\/]routing[\\/]adapters[\\/]reactRouterProvider\.js$/;
  const id = '\0ra-core-react-router';
  return {
    name: 'console:ra-core-without-data-router',
    apply: 'build',
    enforce: 'pre',
    resolveId: (source, importer) => (source === 'react-router-dom' && importer && adapter.test(importer) ? id : undefined),
    load: (loaded) =>
      loaded === id
        ? [
            "export * from 'react-router';",
            'const none = () => {',
            "  throw new Error('The console renders react-admin inside its own BrowserRouter (App.tsx): no data router is bundled.');",
            '};',
            'export { none as createHashRouter, none as RouterProvider };',
          ].join('\n')
        : undefined,
  };
}

/**
 * Each script, stylesheet, SVG and the page itself also as .br and .gz beside it, made once here at
 * the best ratio; the server answers with the one the browser accepts (api/src/http/console-static.ts),
 * as it does for the storefront (storefront/vite.config.ts).
 */
function precompress(): Plugin {
  return {
    name: 'console:precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      for (const [name, file] of Object.entries(bundle)) {
        if (!/\.(js|css|svg|html|json)$/.test(name)) continue;
        const body = Buffer.from(file.type === 'chunk' ? file.code : file.source);
        if (body.length < 1024) continue;
        const path = join(options.dir!, name);
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
        );
        writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

// The API process serves admin/dist at / (with SPA fallback), so the base stays '/'.
// The shared schemas, permission catalogue and resource registry come from the
// @app/contracts workspace package (contracts/), bundled from its TypeScript source. Screens on
// the initial path import its zod-free parts (@app/contracts/resources, /permissions), so zod
// and the schemas load with the forms that need them.
export default defineConfig({
  base: '/',
  plugins: [react(), raCoreWithoutDataRouter(), precompress()],
  resolve: {
    // One copy of each: a second emotion or react-router copy breaks RTL caching and routing.
    dedupe: ['react', 'react-dom', 'react-router', '@emotion/react', '@mui/material', 'i18next', 'react-i18next'],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    // Left to itself the bundler cuts the console into ~240 scripts, most under 5 KB: the sign-in
    // page took 79 requests and the dashboard 117, each a round trip on a phone link. What the first
    // page needs is one script, and the libraries two or more screens share one more (cached once
    // for every later screen): 17 and 33 requests for the same bytes on the wire
    // (`npm run bench:console`).
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'initial', tags: ['$initial'], priority: 2 },
            { name: 'lib', test: /node_modules/, minShareCount: 2, priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    proxy: { '/api': api, '/locales': api, '/storage': api },
  },
});
