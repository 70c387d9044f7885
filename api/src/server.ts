import { setTimeout as sleep } from 'node:timers/promises';
import type { Server } from 'node:http';
import pino from 'pino';
import { loadConfig } from './config.ts';
import { connectDatabase, migrateAndSeed, type Database } from './database/connection.ts';
import { createApp } from './app.ts';
import { RechargeWorker } from './recharges/recharge-worker.ts';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.ts';
import { onWebhookEvent } from './webhooks/webhook-events.ts';
import { SmsDispatcher } from './sms/sms-dispatcher.ts';
import { readSmsEnv, setSmsReceipts } from './sms/sms-config.ts';
import { africasTalkingAdapter } from './connectors/sms/africastalking/africastalking-adapter.ts';
import { vendorFetch } from './connectors/vendor-http.ts';
import { startSqliteCheckpointer, SQLITE_SAFETY_CHECKPOINT_PAGES, type Checkpointer } from './database/sqlite-checkpointer.ts';
import { moneyAdapters, readMoneyEnv, type MoneyAdapters } from './connectors/money-adapters.ts';
import { databaseTrail } from './recharges/remote-calls.ts';
import { readRoutingEnv, scheduleCatalogueSync } from './routing/routing-env.ts';
import { readFloatEnv } from './aggregators/float-env.ts';
import { scheduleFloatChecks, setFloatCheckEverySales } from './aggregators/float.service.ts';
import { systemContext } from './platform/context.ts';
import { readDailyCloseEnv, scheduleDailyCloseRefresh } from './daily-close/daily-close-job.ts';
import { dailyCloseDeps } from './daily-close/daily-close.routes.ts';
import { BatchProcessor } from './recharge-batches/recharge-batch-processor.ts';
import { onBatchCreated } from './recharge-batches/recharge-batch.service.ts';
import { ServiceMetrics } from './metrics/service-metrics.ts';
import { startMetricsListener } from './metrics/metrics.routes.ts';
import { Readiness } from './health/readiness.ts';

/** Sockets to Africa's Talking: the SMS dispatcher sends a few receipts at a time (sms-dispatcher.ts concurrency). */
const SMS_HTTP_CONNECTIONS = 16;
/** The worker's loop goes round every second or so; a minute without a round is a stuck loop (readiness says so). */
const WORKER_STALLED_AFTER_MS = 60_000;
/** Of the drain's time, what is kept for closing the listener and the pool after the worker's sales are handed back. */
const CLOSING_MARGIN_MS = 1_000;

/**
 * `npm start`: wait for the database, migrate, seed (demo data unless SEED_DEMO=false or
 * production), listen, and drain on SIGTERM/SIGINT (drainOnSignal): not ready at once, no new
 * sales claimed, the sales held finished or handed back, then the listener and the pool closed,
 * exit 0, all within DRAIN_TIMEOUT_SECONDS.
 */

/** A database that is still starting (a container, a failover) is waited for, with backoff. */
async function waitForDatabase(db: Database, logger: pino.Logger, timeoutSeconds: number): Promise<void> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (let attempt = 1, delay = 500; ; attempt++, delay = Math.min(delay * 2, 5_000)) {
    try {
      await db.knex.raw('select 1');
      return;
    } catch (err) {
      if (Date.now() + delay > deadline) {
        throw new Error(`The database did not answer within ${timeoutSeconds} s (DB_CONNECT_TIMEOUT_SECONDS): ${(err as Error).message}`);
      }
      logger.warn(`Database not reachable yet (attempt ${attempt}: ${(err as Error).message}); retrying in ${delay} ms`);
      await sleep(delay);
    }
  }
}

/** `work`, waited for at most `ms` (a stop that hangs must not hold the exit). */
async function within(ms: number, work: Promise<unknown> | unknown): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.resolve(work).catch(() => undefined), new Promise((r) => (timer = setTimeout(r, Math.max(0, ms))))]);
  clearTimeout(timer);
}

interface Running {
  server: Server;
  metricsServer: Server | null;
  db: Database;
  logger: pino.Logger;
  readiness: Readiness;
  worker: RechargeWorker | null;
  money: MoneyAdapters;
  checkpointer: Checkpointer | null;
  webhooks: WebhookDispatcher | null;
  sms: SmsDispatcher | null;
  // The timers, and the batch processor (awaited: its current line ends before the database closes).
  stopSchedules: () => void | Promise<void>;
  /** What the app holds open besides its listener (its rate limits' Redis connection and heartbeat), closed after it. */
  closeApp: () => unknown;
  drainTimeoutMs: number;
  notReadyMs: number;
}

/**
 * The drain on SIGTERM/SIGINT, for rolling restarts behind a load balancer:
 * 1. /health/ready answers 503 "draining" at once (live still answers), so the balancer stops
 *    sending traffic; requests keep being served meanwhile (a purchase made now is claimed by
 *    another process, or by this one's next start on SQLite);
 * 2. the worker claims nothing more: sales waiting in memory go back to pending at once, sales in a
 *    call finish their steps; whatever is still running near the deadline is handed back to
 *    pending under its claim (RechargeWorker.stop), so another process takes it at once instead of
 *    after its lease; webhooks, SMS receipts, batches and the schedules stop too;
 * 3. after DRAIN_NOT_READY_SECONDS at least, the listener closes (idle keep-alive sockets at once,
 *    requests in flight finish, all cut at the deadline), then the vendors' pools and the database;
 *    exit 0, within DRAIN_TIMEOUT_SECONDS.
 */
function drainOnSignal(run: Running) {
  let closing = false;
  const { server, logger } = run;
  return (signal: string) => {
    if (closing) return;
    closing = true;
    const deadline = Date.now() + run.drainTimeoutMs;
    const left = () => Math.max(0, deadline - Date.now());
    run.readiness.startDraining();
    logger.info(`${signal} received: draining (not ready, no new sales claimed; at most ${run.drainTimeoutMs / 1000} s)`);
    // A backstop only: a close that hangs past the drain's own bound.
    const force = setTimeout(() => {
      logger.error('Still closing well after DRAIN_TIMEOUT_SECONDS: exiting anyway');
      process.exit(1);
    }, run.drainTimeoutMs + 10_000);
    force.unref();
    void (async () => {
      const [released] = await Promise.all([
        run.worker ? run.worker.stop({ timeoutMs: Math.max(0, left() - CLOSING_MARGIN_MS) }) : 0,
        within(left(), run.stopSchedules()),
        within(left(), run.webhooks?.stop()),
        within(left(), run.sms?.stop()),
        sleep(Math.min(run.notReadyMs, left())),
      ]);
      if (released) logger.warn(`${released} sale(s) still running at the end of the drain handed back for another process`);
      await new Promise<void>((resolve) => {
        const cut = setTimeout(() => {
          logger.warn('Requests still running at the end of the drain: closing their connections');
          server.closeAllConnections();
          resolve();
        }, left());
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        // Idle keep-alive sockets would otherwise hold server.close() open until they time out.
        server.closeIdleConnections();
      });
      run.metricsServer?.close();
      await within(left() + CLOSING_MARGIN_MS, run.closeApp());
      await run.money.close();
      await run.db.knex.destroy();
      await run.checkpointer?.stop();
      process.exit(0);
    })().catch((err) => {
      logger.error({ err }, 'drain failed');
      process.exit(1);
    });
  };
}

async function main() {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel === 'silent' ? 'info' : config.logLevel });
  const db = connectDatabase();
  await waitForDatabase(db, logger, config.dbConnectTimeoutSeconds);
  await migrateAndSeed(db, { seedDemo: config.seedDemo, seedDemoHistory: config.seedDemoHistory, dataDir: config.dataDir });
  // SQLite: the WAL is checkpointed by a thread of its own, not inside a sale's COMMIT (sqlite-checkpointer.ts).
  const checkpointer = db.sqliteFile
    ? startSqliteCheckpointer(db.sqliteFile, { onError: (message) => logger.warn({ message }, 'SQLite checkpoint failed') })
    : null;
  if (checkpointer) await db.knex.raw(`PRAGMA wal_autocheckpoint = ${SQLITE_SAFETY_CHECKPOINT_PAGES}`);
  // One registry for the process: the worker, the vendors' calls and the app's HTTP answers all count into it.
  const metrics = config.metricsToken || config.metricsPort ? new ServiceMetrics(db.knex) : null;
  const readiness = new Readiness();
  // Every vendor call is recorded through the trail: counted there on its way (metrics/service-metrics.ts).
  const trail = () => (metrics ? metrics.observeTrail(databaseTrail(db.knex, logger)) : databaseTrail(db.knex, logger));
  const moneyEnv = readMoneyEnv();
  const routingEnv = readRoutingEnv();
  const floatEnv = readFloatEnv();
  const dailyCloseEnv = readDailyCloseEnv();
  const money = await moneyAdapters(moneyEnv, { trail: trail(), logger });
  logger.info(`Money: ${money.describe}`);
  if (config.env === 'production' && !moneyEnv.WAAFIPAY_URL)
    logger.warn('NODE_ENV=production without WAAFIPAY_URL: payments go to the embedded stand-in, not to a real gateway');
  // Fulfilment runs in this process unless RECHARGE_WORKER=false (e.g. a web-only instance).
  const worker = !config.rechargeWorker
    ? null
    : new RechargeWorker({
        db: db.knex,
        client: db.client,
        payment: money.gateways,
        operators: money.operators,
        logger,
        concurrency: moneyEnv.RECHARGE_WORKER_CONCURRENCY,
        paymentTimeoutMs: moneyEnv.PAYMENT_TIMEOUT_MS,
        leaseMs: moneyEnv.RECHARGE_LEASE_MS,
        reviewAfterMs: moneyEnv.RECHARGE_REVIEW_AFTER_MS,
        retryBaseMs: moneyEnv.RECHARGE_RETRY_BASE_MS,
        reconcileMs: moneyEnv.RECHARGE_RECONCILE_MS,
        checkMaxMs: moneyEnv.RECHARGE_CHECK_MAX_MS,
        downVendorLookupsPerMinute: moneyEnv.RECHARGE_DOWN_VENDOR_LOOKUPS_PER_MINUTE,
        usableAggregator: money.usableAggregator,
        routeHealth: { threshold: routingEnv.ROUTE_UNHEALTHY_AFTER, windowMs: routingEnv.ROUTE_HEALTH_WINDOW_MS, skipMs: routingEnv.ROUTE_REST_MS },
        observer: metrics ?? undefined,
        handBackAfterMs: Math.max(moneyEnv.PAYMENT_CALL_TIMEOUT_MS, moneyEnv.OPERATOR_TIMEOUT_MS),
      });
  if (worker) {
    // One process owns a SQLite file, so what it left in processing is its own: resume it now.
    // On MySQL other processes may be working: their rows come back when the lease runs out.
    const resumed = await worker.recoverExpired(db.client === 'sqlite' ? 0 : undefined);
    if (resumed) logger.warn(`${resumed} recharge(s) left in processing by an earlier run resumed`);
    worker.start();
    metrics?.watchWorker(worker);
    readiness.watchLoop('recharge worker', { lastTickAt: () => worker.lastTickAt, staleAfterMs: WORKER_STALLED_AFTER_MS });
  }
  // Webhook deliveries run where the sales are settled (RECHARGE_WORKER), beside the API, never in a request.
  const webhooks = config.rechargeWorker ? new WebhookDispatcher({ db: db.knex, allowLoopback: config.webhookAllowLoopback }) : null;
  if (webhooks) {
    onWebhookEvent(() => webhooks.wake());
    webhooks.start();
  }
  // SMS receipts (sms/): written with the sale's change while SMS is configured, sent where the sales are settled.
  const smsConfig = readSmsEnv(process.env, money.standIns.urls.africastalking);
  const sms = config.rechargeWorker
    ? new SmsDispatcher({
        db: db.knex,
        adapter: africasTalkingAdapter(smsConfig.settings, {
          trail: trail(),
          // Africa's Talking through undici's request on a keep-alive pool, as the money vendors (vendor-http.ts):
          // at a rush a receipt a sale, and fetch's web streams were the largest cost of a vendor call.
          fetch: smsConfig.live ? vendorFetch({ connections: SMS_HTTP_CONNECTIONS }) : (money.standIns.fetch ?? undefined),
        }),
      })
    : null;
  setSmsReceipts(smsConfig.enabled, () => sms?.wake());
  sms?.start();
  logger.info(
    `SMS receipts: ${smsConfig.enabled ? (smsConfig.live ? "on (Africa's Talking)" : 'on (the embedded stand-in)') : 'off (AFRICASTALKING_API_URL is not set)'}; callbacks ${smsConfig.callbackSecret ? 'on' : 'off (SMS_CALLBACK_SECRET is not set)'}`,
  );
  // The aggregators' catalogues, pulled where the sales are fulfilled.
  const stopCatalogueSync = config.rechargeWorker
    ? scheduleCatalogueSync(
        systemContext({ db: db.knex }),
        Object.fromEntries(Object.entries(money.operators).filter(([name]) => money.usableAggregator(name))),
        routingEnv.CATALOGUE_SYNC_MINUTES,
        logger,
      )
    : () => undefined;
  // The daily close's vendors' records, pulled for yesterday and today where the sales are fulfilled.
  const stopDailyClose = config.rechargeWorker
    ? scheduleDailyCloseRefresh(
        systemContext({ db: db.knex }),
        dailyCloseDeps({ operators: money.operators, gateways: money.gateways }, { payment: money.gateways, wake: () => worker?.wake() }),
        dailyCloseEnv.DAILY_CLOSE_REFRESH_MINUTES,
        logger,
      )
    : () => undefined;
  // Bulk sales: their lines become sales where the sales are fulfilled, woken when a batch is taken.
  const batches = config.rechargeWorker ? new BatchProcessor({ db: db.knex, logger, wakeSales: () => worker?.wake() }) : null;
  if (batches) {
    onBatchCreated(() => batches.wake());
    batches.start();
  }
  // The aggregators' floats, read there too: on a schedule, and after every few sales delivered (sale-steps.ts).
  setFloatCheckEverySales(config.rechargeWorker ? floatEnv.FLOAT_CHECK_EVERY_SALES : 0);
  const stopFloatChecks = config.rechargeWorker
    ? scheduleFloatChecks(db.knex, { operators: money.operators, usableAggregator: money.usableAggregator, live: money.live }, floatEnv.FLOAT_CHECK_MINUTES)
    : () => undefined;
  const app = createApp({
    config,
    db,
    logger,
    onRechargeCreated: () => worker?.wake(),
    rechargeMoney: { payment: money.gateways, wake: () => worker?.wake() },
    routing: { operators: money.operators, gateways: money.gateways, live: money.live, usableAggregator: money.usableAggregator },
    metrics,
    readiness,
  });
  const server = app.listen(config.port, () => {
    const url = `http://localhost:${config.port}`;
    logger.info(`Listening on ${url} (database: ${db.client})`);
    console.log(`\n  Console:  ${url}/\n  API:      ${url}/api/v1  (docs: ${url}/api/v1/docs)`);
    if (config.seedDemo) {
      console.log(
        '  Demo sign-ins: admin@example.com / Admin@12345 (super admin), dealer@example.com / Dealer@12345 (dealer DEMO), hodan@example.com / Dealer@12345 (dealer HODAN)',
      );
      console.log(`  Storefront: ${url}/dealer/DEMO\n`);
    }
  });
  server.keepAliveTimeout = 65_000;
  const metricsServer = metrics && config.metricsPort ? await startMetricsListener(metrics, { port: config.metricsPort, host: config.metricsHost }) : null;
  if (metricsServer) logger.info(`Metrics on http://${config.metricsHost}:${config.metricsPort}/metrics`);
  const shutdown = drainOnSignal({
    server,
    metricsServer,
    db,
    logger,
    readiness,
    worker,
    money,
    checkpointer,
    webhooks,
    sms,
    stopSchedules: () => {
      stopCatalogueSync();
      stopDailyClose();
      stopFloatChecks();
      return batches?.stop();
    },
    closeApp: () => (app.locals.closeRateLimits as (() => Promise<void>) | undefined)?.(),
    drainTimeoutMs: config.drainTimeoutSeconds * 1000,
    notReadyMs: config.drainNotReadySeconds * 1000,
  });
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
