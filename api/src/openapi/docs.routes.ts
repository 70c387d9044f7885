import path from 'node:path';
import { createRequire } from 'node:module';
import express, { type RequestHandler, type Router } from 'express';
import { AUDIENCES, type Audience, type OpenApiRegistry } from './registry.ts';

const require = createRequire(import.meta.url);

/** GET …/openapi.json of one audience's document, built once (after every route has registered). */
export function openApiHandler(registry: OpenApiRegistry, audience: Audience): RequestHandler {
  return (_req, res) => {
    res.json(registry.cachedDocument(audience));
  };
}

/** The docs page's documents, in the order of its selector. */
const DOCUMENTS = [
  { name: 'Console API', url: `${AUDIENCES.console.server}/openapi.json` },
  { name: 'Reseller API', url: `${AUDIENCES.reseller.server}/openapi.json` },
];

/**
 * /api/v1/openapi.json (the console API's document) and a readable docs page showing both
 * documents (Swagger UI, served from the package, no CDN; ?urls.primaryName=Reseller%20API opens
 * the reseller one). The reseller document is served by reseller.routes.ts, under its own base URL.
 */
export function docsRoutes(registry: OpenApiRegistry): Router {
  const router = express.Router();
  router.get('/openapi.json', openApiHandler(registry, 'console'));
  const uiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  router.get('/docs', (_req, res) => {
    res.type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>API documentation</title><link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div><script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/api/v1/docs/init.js"></script></body></html>`);
  });
  router.get('/docs/init.js', (_req, res) => {
    res
      .type('application/javascript')
      .send(
        `window.ui = SwaggerUIBundle({ urls: ${JSON.stringify(DOCUMENTS)}, dom_id: '#swagger-ui', deepLinking: true, presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });`,
      );
  });
  router.use('/docs/assets', express.static(uiDir, { index: false, maxAge: '1d' }));
  return router;
}
