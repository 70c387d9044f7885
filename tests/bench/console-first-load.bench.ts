/**
 * `npm run bench:console`: the console's first load as a browser sees it. The built console
 * (admin/dist; `npm run build` first) served by the real server (SQLite, demo seed), Debian's
 * Chromium through playwright-core with an empty cache per visit; bytes on the wire (compressed,
 * headers included, from the DevTools protocol) and requests, for the sign-in page and for the
 * dashboard of a signed-in admin, with the uncompressed size beside them.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { recordFigure } from './results.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** Goals: what a 1.6 Mbps phone link loads in a few seconds. */
const GOAL = { loginKB: 450, dashboardKB: 600, dashboardRequests: 80 };

if (!fs.existsSync(path.join(ROOT, 'admin', 'dist', 'index.html'))) {
  console.error('admin/dist is missing: run `npm run build` first.');
  process.exit(1);
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

interface Load {
  requests: number;
  wire: number;
  decoded: number;
  byType: Map<string, { requests: number; wire: number }>;
  /** Each response's URL and bytes on the wire (BENCH_VERBOSE=1 prints the largest). */
  files: { url: string; wire: number }[];
}

/** Opens `path` in the context's fresh page and sums what crossed the network until it is idle. */
async function measure(context: BrowserContext, url: string, ready: string): Promise<Load> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const types = new Map<string, string>();
  const urls = new Map<string, string>();
  const load: Load = { requests: 0, wire: 0, decoded: 0, byType: new Map(), files: [] };
  cdp.on('Network.requestWillBeSent', (e) => {
    types.set(e.requestId, e.type ?? 'Other');
    urls.set(e.requestId, e.request.url);
  });
  cdp.on('Network.dataReceived', (e) => (load.decoded += e.dataLength));
  cdp.on('Network.loadingFinished', (e) => {
    const type = types.get(e.requestId) ?? 'Other';
    load.requests += 1;
    load.wire += e.encodedDataLength;
    load.files.push({ url: urls.get(e.requestId) ?? '', wire: e.encodedDataLength });
    const t = load.byType.get(type) ?? { requests: 0, wire: 0 };
    t.requests += 1;
    t.wire += e.encodedDataLength;
    load.byType.set(type, t);
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  await page.locator(ready).first().waitFor({ timeout: 60_000 });
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(500);
  await page.close();
  return load;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-console-'));
const port = await freePort();
const server = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], {
  cwd: ROOT,
  env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', PORT: String(port), SEED_DEMO: 'true', LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const base = `http://127.0.0.1:${port}`;
let browser: Browser | undefined;
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/v1/health`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (i > 240) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 500));
  }
  browser = await chromium.launch({ executablePath: process.env.CHROME_PATH || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const viewport = { width: 390, height: 844 };

  const visitor = await browser.newContext({ baseURL: base, viewport, locale: 'en-US' });
  const login = await measure(visitor, '/auth/login', 'input[type="password"]');

  // Signed in once (its own context), then the dashboard with an empty cache and the session cookie.
  await (async () => {
    const page = await visitor.newPage();
    await page.goto('/auth/login');
    await page.getByLabel('Email').fill('admin@example.com');
    await page.getByLabel('Password', { exact: true }).fill('Admin@12345');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard', { timeout: 60_000 });
    await page.close();
  })();
  const signedIn = await browser.newContext({ baseURL: base, viewport, locale: 'en-US', storageState: await visitor.storageState() });
  const dashboard = await measure(signedIn, '/dashboard', 'main h1');

  console.log(`\nChromium ${browser.version()}, 390x844, empty cache, the real server (SQLite, demo seed)\n`);
  console.log('| first load | requests | transferred (compressed, with headers) | uncompressed |');
  console.log('|---|---|---|---|');
  for (const [name, l] of [
    ['sign-in page', login],
    ['dashboard, signed in', dashboard],
  ] as const) {
    console.log(`| ${name} | ${l.requests} | ${kb(l.wire)} | ${kb(l.decoded)} |`);
  }
  console.log('\n| dashboard by type | requests | transferred |');
  console.log('|---|---|---|');
  for (const [type, t] of [...dashboard.byType].sort((a, b) => b[1].wire - a[1].wire)) console.log(`| ${type} | ${t.requests} | ${kb(t.wire)} |`);

  if (process.env.BENCH_VERBOSE) {
    for (const f of dashboard.files.sort((a, b) => b.wire - a.wire).slice(0, 40)) console.log(`  ${kb(f.wire)}  ${f.url.replace(base, '')}`);
  }

  recordFigure({
    measure: 'console first load, sign-in page (transferred, Chromium)',
    value: `${kb(login.wire)} in ${login.requests} requests`,
    reference: `${kb(login.decoded)} uncompressed`,
    goal: `<= ${GOAL.loginKB} KB`,
    met: login.wire <= GOAL.loginKB * 1024,
  });
  recordFigure({
    measure: 'console first load, dashboard signed in (transferred, Chromium)',
    value: `${kb(dashboard.wire)} in ${dashboard.requests} requests`,
    reference: `${kb(dashboard.decoded)} uncompressed`,
    goal: `<= ${GOAL.dashboardKB} KB, <= ${GOAL.dashboardRequests} requests`,
    met: dashboard.wire <= GOAL.dashboardKB * 1024 && dashboard.requests <= GOAL.dashboardRequests,
  });
} finally {
  await browser?.close();
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  await exited;
  fs.rmSync(dataDir, { recursive: true, force: true });
}
