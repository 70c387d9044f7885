import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, onTestFailed } from 'vitest';

/**
 * End-to-end harness: builds the console when admin/dist is missing or older than its sources,
 * starts the real server (SQLite in a fresh temp dir, demo seed) on a free port, waits for
 * /api/v1/health and drives Debian's Chromium through playwright-core.
 */
export const ROOT = resolve(import.meta.dirname, '..', '..');
export const ARTIFACTS = join(ROOT, 'test-results');
export const ADMIN = { email: 'admin@example.com', password: 'Admin@12345' };
export const DEALER = { email: 'dealer@example.com', password: 'Dealer@12345' };

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

export function ensureAdminBuild(): void {
  for (const app of ['admin', 'storefront']) {
    const index = join(ROOT, app, 'dist', 'index.html');
    const sources = Math.max(newestMtime(join(ROOT, app, 'src')), statSync(join(ROOT, app, 'index.html')).mtimeMs);
    if (existsSync(index) && statSync(index).mtimeMs >= sources) continue;
    // A production build whatever vitest set (NODE_ENV=test would make a development bundle, over the size budget).
    execFileSync('npm', ['run', 'build', '--silent', '-w', app], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  }
}

/** A port nothing listens on now (the stand-ins a test reads from are started on one). */
export const freePort = () =>
  new Promise<number>((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });

export interface Server {
  url: string;
  stop(): Promise<void>;
}

export async function startServer(extraEnv: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'e2e-data-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], {
    cwd: ROOT,
    // No demo history: each test starts from the demo's known state (DEMO's wallet at 0.00, no sales).
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, SEED_DEMO: 'true', SEED_DEMO_HISTORY: 'false', NODE_ENV: 'test', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (d) => (log += d));
  child.stderr?.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${log}`);
    try {
      const r = await fetch(`${url}/api/v1/health`);
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`server did not become healthy:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export async function newPage(browser: Browser, baseURL: string, locale = 'en-US'): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ baseURL, locale, viewport: { width: 1366, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // A failing test leaves a screenshot of the page as it was, under test-results/.
  // (Outside a test, e.g. from a script, there is no test to hook.)
  try {
    onTestFailed(async ({ task }) => {
      const name = task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 80);
      await page.screenshot({ path: artifactPath(`failed-${name}.png`), fullPage: true }).catch(() => undefined);
    });
  } catch {
    /* not inside a test */
  }
  // Generous: the suite shares two cores with the API's own tests.
  page.setDefaultTimeout(30_000);
  return { context, page, errors };
}

export async function signIn(page: Page, who = ADMIN, path = '/auth/login'): Promise<void> {
  await page.goto(path);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

/**
 * One server and one browser for a test file: built console, fresh database, demo seed.
 * Read them from the returned object inside tests (they exist once beforeAll has run).
 */
export function useServerAndBrowser(): { server: Server; browser: Browser } {
  const env = {} as { server: Server; browser: Browser };
  beforeAll(async () => {
    ensureAdminBuild();
    [env.server, env.browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}

/** A call to the server's API as a script makes it (setting up what a test needs); its `data`, or an error naming the answer. */
export async function apiData<T = unknown>(
  server: Server,
  path: string,
  init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<T> {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data as T;
}

/** A notification (or any text) shown once on the page. */
export const toast = (page: Page, text: string) => page.getByText(text, { exact: true }).first();

/** A page signed in as `who` and opened at `path` (clipboard allowed: screens that copy a secret). */
export async function signedInAt(env: { server: Server; browser: Browser }, who: typeof ADMIN, path: string, viewport?: { width: number; height: number }) {
  const { context, page, errors } = await newPage(env.browser, env.server.url);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url });
  if (viewport) await page.setViewportSize(viewport);
  await signIn(page, who, `/auth/login?redirect=${encodeURIComponent(path)}`);
  await page.waitForURL((u) => u.pathname === path);
  return { page, errors, close: () => context.close() };
}

/**
 * A customer's purchase from the DEMO shop through the storefront's own API (the bundle by name,
 * the shop's first payment method): the answer's status and data (201 with the sale's id and
 * reference when it is taken).
 */
export async function buyFromDemoShop(
  server: Server,
  order: { phone: string; idempotencyKey: string; payerPhone?: string; bundle?: string },
): Promise<{ status: number; data: { id: number; reference: string; status: string } }> {
  const headers = { dealer_code: 'DEMO', 'content-type': 'application/json' };
  const catalogue = await (await fetch(`${server.url}/api/v1/client/dealer/providers`, { headers })).json();
  const bundle = catalogue.data.providers[0].categories[0].bundles.find((b: { name: string }) => b.name === (order.bundle ?? '1 GB Daily'));
  const methods = await (await fetch(`${server.url}/api/v1/client/payment-methods`, { headers })).json();
  const res = await fetch(`${server.url}/api/v1/client/recharge`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      bundle_id: bundle.id,
      payment_method_id: methods.data[0].id,
      phone: order.phone,
      payer_phone: order.payerPhone ?? '0617000021',
      idempotency_key: order.idempotencyKey,
    }),
  });
  return { status: res.status, data: (await res.json()).data };
}
