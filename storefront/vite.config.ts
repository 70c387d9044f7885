import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { PREACT_ALIASES } from './preact-aliases.ts';

const api = 'http://localhost:3000';

/**
 * The stylesheet goes into the page itself (a <style> in index.html, about 2 KB gzip): the first paint
 * waits for no second request. It is all of styles.css: small enough that a split into a critical part
 * and a later one would save nothing a phone can measure. The server's CSP allows inline styles.
 */
function inlineStylesheet(): Plugin {
  return {
    name: 'storefront:inline-stylesheet',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const html = bundle['index.html'];
      if (!html || html.type !== 'asset') return;
      let source = String(html.source);
      for (const [name, file] of Object.entries(bundle)) {
        if (file.type !== 'asset' || !name.endsWith('.css')) continue;
        const link = new RegExp(`<link rel="stylesheet"[^>]*href="[^"]*/${name.replace(/[.]/g, '\\.')}"[^>]*>`);
        if (!link.test(source)) continue;
        source = source.replace(link, () => `<style>${String(file.source).trim()}</style>`);
        delete bundle[name];
      }
      html.source = source;
    },
  };
}

/**
 * Each script and stylesheet also as .br and .gz beside it, made once here at the best ratio; the
 * server answers /storefront/assets/* with the one the browser accepts (api/src/storefront/storefront-pages.ts).
 */
function precompress(): Plugin {
  return {
    name: 'storefront:precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      for (const [name, file] of Object.entries(bundle)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const body = Buffer.from(file.type === 'chunk' ? file.code : file.source);
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

/**
 * The customer storefront. The API process serves the built HTML at /dealer/{code}/... (with the
 * dealer's head written in), the assets under /storefront/, and the service worker at
 * /customer-sw.js. The manifest is made per dealer by the server, so the plugin writes none.
 * JSX is compiled by Vite itself (tsconfig's react-jsx, its imports aliased to Preact): no React plugin.
 */
export default defineConfig({
  base: '/storefront/',
  plugins: [
    inlineStylesheet(),
    precompress(),
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
  resolve: { alias: PREACT_ALIASES },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2020' },
  server: { proxy: { '/api': api, '/locales': api, '/storage': api, '/dealer': api } },
});
