import path from 'node:path';
import { createRequire } from 'node:module';
import express, { type Router } from 'express';
import type { OpenApiRegistry } from './registry.ts';

const require = createRequire(import.meta.url);

/** /api/v1/openapi.json and a readable docs page (Swagger UI, served from the package, no CDN). */
export function docsRoutes(registry: OpenApiRegistry): Router {
  const router = express.Router();
  let cached: Record<string, unknown> | null = null;
  router.get('/openapi.json', (_req, res) => {
    cached ??= registry.document();
    res.json(cached);
  });
  const uiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  router.get('/docs', (_req, res) => {
    res.type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>API documentation</title><link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div><script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/init.js"></script></body></html>`);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(`window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#swagger-ui', deepLinking: true });`);
  });
  router.use('/docs/assets', express.static(uiDir, { index: false, maxAge: '1d' }));
  return router;
}
