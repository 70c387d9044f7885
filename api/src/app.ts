import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import express, { type Express } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import pino from 'pino';
import type { AppConfig } from './config.ts';
import type { Database } from './database/connection.ts';
import { OpenApiRegistry } from './openapi/registry.ts';
import { docsRoutes } from './openapi/docs.routes.ts';
import { healthRoutes } from './health/health.routes.ts';
import { Readiness } from './health/readiness.ts';
import { ServiceMetrics } from './metrics/service-metrics.ts';
import { metricsEndpoint } from './metrics/metrics.routes.ts';
import { authRoutes } from './auth/auth.routes.ts';
import { userRoutes } from './users/user.routes.ts';
import { userOptionRoutes } from './users/user-options.routes.ts';
import { roleRoutes } from './roles/role.routes.ts';
import { bannerRoutes } from './banners/banner.routes.ts';
import { providerRoutes } from './catalogue/provider.routes.ts';
import { categoryRoutes } from './catalogue/category.routes.ts';
import { bundleRoutes } from './catalogue/bundle.routes.ts';
import { dealerCatalogueRoutes } from './dealer-catalogue/dealer-catalogue.routes.ts';
import { paymentMethodRoutes } from './settings/payment-method.routes.ts';
import { contactRoutes } from './settings/contact.routes.ts';
import { areaRoutes } from './settings/area.routes.ts';
import { settingsRoutes } from './settings/settings.routes.ts';
import { clientRoutes, storefrontFastPath } from './storefront/client.routes.ts';
import { customerSession } from './storefront/customer-session.ts';
import { storefrontPages } from './storefront/storefront-pages.ts';
import { configureSecrets } from './settings/secret-box.ts';
import { walletRoutes } from './wallets/wallet.routes.ts';
import { dealerShopRoutes } from './dealer-shop/dealer-shop.routes.ts';
import { rechargeRoutes, type RechargeMoney } from './recharges/recharge.routes.ts';
import { routingRoutes, type RoutingDeps } from './routing/routing.routes.ts';
import { reportRoutes } from './reports/report.routes.ts';
import { logRoutes } from './logs/log.routes.ts';
import { searchRoutes } from './search/search.routes.ts';
import { apiKeyRoutes } from './api-keys/api-key.routes.ts';
import { webhookDeliveryRoutes, webhookEndpointRoutes } from './webhooks/webhook.routes.ts';
import { smsCallbackRoutes, smsRoutes } from './sms/sms.routes.ts';
import { resellerRoutes } from './reseller/reseller.routes.ts';
import { aggregatorRoutes } from './aggregators/aggregator.routes.ts';
import { dailyCloseDeps, dailyCloseRoutes } from './daily-close/daily-close.routes.ts';
import { rechargeBatchRoutes } from './recharge-batches/recharge-batch.routes.ts';
import { localDiskStorage, type FileStorage } from './uploads/storage.ts';
import { apiNotFound, errorHandler } from './http/error-handler.ts';
import { createRateLimits } from './http/rate-limits.ts';
import { warnOfOtherProcesses } from './http/process-presence.ts';
import { storefrontLimits } from './storefront/storefront-limits.ts';
import { consoleStatic, sendCompressedFile } from './http/console-static.ts';
import { initServerI18n, pickLanguage, translator, LANGUAGES, LOCALES_DIR } from './i18n/server-i18n.ts';
import { configureIds } from './http/ids.ts';
import { configureTokens } from './auth/tokens.ts';
import { installPasswordPolicy } from './auth/common-passwords.ts';
import { PROJECT_ROOT } from '../../db/config.ts';
import './http/request-context.ts';

export interface AppDeps {
  config: AppConfig;
  db: Database;
  storage?: FileStorage;
  logger?: pino.Logger;
  /** Called after a storefront purchase commits (the server wakes its recharge worker). */
  onRechargeCreated?: () => void;
  /** The payment gateway (manual refunds) and the worker's wake-up (settled reviews, retries). */
  rechargeMoney?: RechargeMoney;
  /** The aggregators and gateways this process talks to: routes, catalogue syncs, the connectors list. */
  routing?: RoutingDeps;
  /**
   * The process's metrics (server.ts makes them first, for its worker and adapters). Without them the
   * app makes its own when METRICS_TOKEN or METRICS_PORT is set; null: none. Kept on app.locals.metrics.
   */
  metrics?: ServiceMetrics | null;
  /** Draining and the loops /health/ready watches (server.ts's); without it the app makes its own. On app.locals.readiness. */
  readiness?: Readiness;
}

const ADMIN_DIST = path.join(PROJECT_ROOT, 'admin', 'dist');

/** Builds the whole HTTP application: API, translations, uploads and the console. */

/** A URL as the logs may show it: `token` and `secret` query values replaced. */
export function redactQuerySecrets(url: string): string {
  return url.replace(/([?&](?:token|secret)=)[^&#]*/gi, '$1[redacted]');
}

export function createApp({
  config,
  db,
  storage = localDiskStorage(path.join(config.dataDir, 'storage')),
  logger,
  onRechargeCreated,
  rechargeMoney,
  routing = {},
  metrics = config.metricsToken || config.metricsPort ? undefined : null,
  readiness = new Readiness(),
}: AppDeps): Express {
  configureIds(config.appKey);
  configureTokens(config.appKey);
  configureSecrets(config.appKey);
  initServerI18n();
  installPasswordPolicy();

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'extended');
  // One registry per app (metrics/service-metrics.ts); HTTP answers are counted from the first middleware on.
  const serviceMetrics = metrics === undefined ? new ServiceMetrics(db.knex) : metrics;
  app.locals.metrics = serviceMetrics;
  app.locals.readiness = readiness;
  if (serviceMetrics) app.use(serviceMetrics.http());
  // Cached storefront reads answer before everything else (see storefrontFastPath).
  app.use(storefrontFastPath);

  app.use(
    pinoHttp({
      logger: (logger ?? pino({ level: config.logLevel })) as pino.Logger<string>,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && /^[\w-]{1,64}$/.test(incoming) ? incoming : crypto.randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      redact: ['req.headers.authorization', 'req.headers.cookie', 'req.query.token', 'req.query.secret'],
      // A set-password link's token and the SMS callbacks' secret travel in the query: never in the logs.
      serializers: { req: (req: { url?: string }) => ({ ...req, url: typeof req.url === 'string' ? redactQuerySecrets(req.url) : req.url }) },
      // Monitors and scrapers call these every few seconds.
      autoLogging: { ignore: (req) => req.url === '/metrics' || /^\/api\/v1\/health(\/live|\/ready)?$/.test(req.url ?? '') },
    }),
  );
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          // MUI/emotion inject style elements at run time.
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:', 'blob:'],
          connectSrc: ["'self'"],
          workerSrc: ["'self'"],
          manifestSrc: ["'self'"],
          upgradeInsecureRequests: null,
        },
      },
      crossOriginEmbedderPolicy: false,
    }),
  );
  app.use((req, _res, next) => {
    req.lng = pickLanguage(req.query.lng, req.get('accept-language'));
    req.t = translator(req.lng);
    next();
  });

  // Prometheus text: with METRICS_TOKEN for its bearer only; otherwise 404 (METRICS_PORT serves it on its own listener).
  app.get('/metrics', metricsEndpoint(serviceMetrics, config.metricsToken));

  const registry = new OpenApiRegistry();
  // Health, liveness and readiness, ahead of the API's rate limit so a monitor never gets a 429.
  app.use('/api/v1/health', healthRoutes(registry, db.knex, db.timeouts.healthSeconds, readiness).router);
  const api = express.Router();
  // The rate ceilings (http/rate-limits.ts): counted in Redis, one count for every process, when
  // REDIS_URL is set; otherwise in this process's memory, and a warning at start when other processes
  // share the database (http/process-presence.ts). Sign-in and two-factor throttles are in the database.
  const limits = createRateLimits({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, logger });
  // Only a server process (server.ts passes its logger) watches: the tests' in-process apps do not.
  const presence = !limits.shared && logger ? warnOfOtherProcesses({ db: db.knex, logger }) : null;
  // The Redis connection and the heartbeat row, for whoever closes this app.
  app.locals.closeRateLimits = async () => {
    await presence?.stop();
    await limits.close();
  };
  // A broad per-address ceiling against floods (the health checks are mounted before it, outside it);
  // sign-in has its own, stricter throttle. The storefront
  // (/client) has its own per session and per address instead (storefront/storefront-limits.ts).
  api.use(limits.perMinute('address', config.apiRateLimitPerMinute, { skip: (req) => req.path.startsWith('/client/') }));
  api.use(express.json({ limit: '1mb' }));
  // Mounted paths: each ApiRouter carries its own prefix for the OpenAPI document.
  const mount = (prefix: string, r: { router: express.Router }) => api.use(prefix, r.router);
  mount('/auth', authRoutes(registry, storage));
  mount('/users', userRoutes(registry, storage));
  mount('/user-options', userOptionRoutes(registry));
  mount('/roles', roleRoutes(registry, storage));
  mount('/banners', bannerRoutes(registry, storage));
  mount('/internet-providers', providerRoutes(registry, storage));
  const delivery = routingRoutes(registry, routing, rechargeMoney);
  mount('/internet-providers', delivery.providers);
  mount('/aggregators', delivery.aggregators);
  // The floats (GET /aggregators, /alerts, PUT /{name}, POST /{name}/check): paths the routing's never take.
  mount('/aggregators', aggregatorRoutes(registry, routing));
  mount('/connectors', delivery.connectors);
  mount('/internet-categories', categoryRoutes(registry, storage));
  mount('/bundles', bundleRoutes(registry, storage));
  const [dealerProviders, dealerCategories, dealerBundles] = dealerCatalogueRoutes(registry);
  mount('/dealer-providers', dealerProviders);
  mount('/dealer-categories', dealerCategories);
  mount('/dealer-bundles', dealerBundles);
  mount('/payment-methods', paymentMethodRoutes(registry, storage));
  mount('/contacts', contactRoutes(registry, storage));
  mount('/areas', areaRoutes(registry, storage));
  mount('/settings', settingsRoutes(registry, storage));
  const customer = customerSession(db.knex, `${config.appKey}:storefront-session`);
  mount(
    '/client',
    clientRoutes(registry, {
      onRechargeCreated,
      session: customer.middleware,
      limits: storefrontLimits(limits, config.storefrontLimits, customer.sessionIdOf),
    }),
  );
  mount('/recharges', rechargeRoutes(registry, rechargeMoney ?? { wake: onRechargeCreated }));
  mount('/recharge-batches', rechargeBatchRoutes(registry));
  const insight = reportRoutes(registry);
  mount('/dashboard', insight.dash);
  mount('/reports', insight.reports);
  mount('/logs', logRoutes(registry));
  mount('/search', searchRoutes(registry));
  const money = walletRoutes(registry, storage);
  mount('/wallets', money.wallets);
  mount('/my-wallet', money.mine);
  mount('/wallet-transactions', money.ledger);
  mount('/wallet-top-up-requests', money.requests);
  mount('/missed-sales', money.missed);
  mount('/my-shop', dealerShopRoutes(registry));
  mount('/dealer/api-keys', apiKeyRoutes(registry));
  mount('/dealer/webhook', webhookEndpointRoutes(registry, { allowLoopback: config.webhookAllowLoopback }));
  mount('/webhook-deliveries', webhookDeliveryRoutes(registry));
  mount('/daily-close', dailyCloseRoutes(registry, dailyCloseDeps(routing, rechargeMoney ?? { wake: onRechargeCreated })));
  // SMS receipts: Africa's Talking's callbacks (form bodies, the `secret` query parameter), the review queue's cases, a dealer's switch.
  api.use('/sms', smsCallbackRoutes(db.knex));
  mount('/sms', smsRoutes(registry));
  api.use(docsRoutes(registry));
  api.use(apiNotFound);
  app.use('/api/v1', api);
  // The reseller API: dealers' API keys instead of sessions (reseller/reseller.routes.ts).
  app.use(
    '/api/reseller/v1',
    resellerRoutes(registry, {
      perMinute: config.apiKeyRateLimitPerMinute,
      perAddressPerMinute: config.apiRateLimitPerMinute,
      limits,
      logger,
      onRechargeCreated,
      webhookAllowLoopback: config.webhookAllowLoopback,
    }),
  );
  app.use('/api', apiNotFound);

  // Translations for the console and storefront: /locales/{lng}/{ns}.json.
  app.get('/locales/:lng/:file', (req, res) => {
    const lng = String(req.params.lng).toLowerCase().split(/[-_]/)[0];
    const match = /^([a-z][a-z-]{0,31})\.json$/.exec(String(req.params.file));
    const file = match && (LANGUAGES as readonly string[]).includes(lng) ? path.join(LOCALES_DIR, lng, `${match[1]}.json`) : null;
    if (!file || !fs.existsSync(file)) return res.status(404).json({ success: false, message: 'Not found' });
    res.setHeader('Cache-Control', config.env === 'production' ? 'public, max-age=3600' : 'no-cache');
    sendCompressedFile(req, res, file);
  });
  // i18next's saveMissing target: accepted (and logged) in development only.
  app.post('/locales/add/:lng/:ns', express.json({ limit: '64kb' }), (req, res) => {
    if (config.env !== 'development') return res.status(404).json({ success: false, message: 'Not found' });
    req.log.warn({ lng: req.params.lng, ns: req.params.ns, keys: Object.keys(req.body ?? {}) }, 'missing translation keys');
    res.json({ success: true });
  });

  // Uploaded files: never executed or sniffed as anything else.
  app.use(
    '/storage',
    express.static(storage.root, {
      index: false,
      dotfiles: 'deny',
      maxAge: '7d',
      setHeaders: (res) => {
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'");
        res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
      },
    }),
    (_req, res) => res.status(404).end(),
  );

  // The customer storefront: /dealer/{code}/... pages, their manifests and icons, /customer-sw.js.
  app.use(storefrontPages(db.knex, storage, { cacheTemplate: config.env === 'production' }));

  // The console: built assets, then index.html for its client-side routes.
  if (fs.existsSync(path.join(ADMIN_DIST, 'index.html'))) {
    // Compressed (brotli or gzip), hashed assets immutable, index.html no-cache (http/console-static.ts).
    app.use(consoleStatic(ADMIN_DIST));
  } else {
    app.get('/', (_req, res) => {
      res.type('text').send('The console is not built yet: run `npm run build` (or `npm start`, which builds it). The API is at /api/v1.');
    });
  }

  app.use((_req, res) => res.status(404).type('text').send('Not found'));
  app.use(errorHandler);
  return app;
}
