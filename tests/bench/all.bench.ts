/**
 * `npm run bench`: every measure of the README's "Benchmarks" in one run, printed as one table,
 * each figure beside the reference it was measured with (the health check of the same server, a
 * bare route, a budget) and its goal. Parts, in order (BENCH_SKIP=name,... leaves some out):
 *
 * - `sizes`: builds both apps (the build fails over a bundle budget) and reads their first-load JavaScript;
 * - `console`: the console's first load in Chromium from the real server: bytes transferred (compressed) and
 *   requests, for the sign-in page and a signed-in dashboard (console-first-load.bench.ts; needs the build);
 * - `api`: the API and purchases on SQLite and MariaDB (api.bench.ts, BENCH_DATABASES);
 * - `storefront`: the storefront's cached read beside a bare route (storefront.bench.ts);
 * - `fulfilment`: purchases at 200 a second fulfilled at field times through the stand-ins, on SQLite
 *   and on three processes sharing MariaDB (fulfilment.bench.ts; BENCH_FULFIL_DATABASES, _RATE, _SECONDS);
 * - `reports`: the reports on 1,000,000 recharges on MariaDB (insight.bench.ts; BENCH_RECHARGES);
 * - `lighthouse`: Lighthouse on a phone (lighthouse/storefront-lighthouse.ts; installs its own tools).
 *
 * Each part also prints its own detailed table above the summary.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchFigure } from './results.ts';
import { recordFigure } from './results.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const skip = new Set((process.env.BENCH_SKIP ?? '').split(',').map((s) => s.trim()));
const resultsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-all-')), 'figures.jsonl');
process.env.BENCH_RESULTS = resultsFile;
const started = new Date();
const failed: string[] = [];

function part(name: string, command: string, args: string[], env: Record<string, string> = {}): string {
  if (skip.has(name)) return '';
  console.error(`\n=== ${name}: ${command} ${args.join(' ')}`);
  try {
    const out = execFileSync(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
    process.stderr.write(out);
    return out;
  } catch (err) {
    failed.push(name);
    const out = (err as { stdout?: string }).stdout ?? '';
    process.stderr.write(out);
    return out;
  }
}

/** "Initial JS: 288.0 KB minified, 88.2 KB gzip (1 files)" and "Budget: 70 KB gzip" from an app's size script. */
function sizeFigure(label: string, out: string) {
  const gzip = /Initial JS: [\d.]+ KB minified, ([\d.]+) KB gzip/.exec(out);
  const budget = /Budget: ([\d.]+) KB/.exec(out);
  if (!gzip) return recordFigure({ measure: `${label} first-load JavaScript, gzip`, value: 'not measured', reference: '', goal: '', met: false });
  const kb = Number(gzip[1]);
  const limit = budget ? Number(budget[1]) : NaN;
  recordFigure({
    measure: `${label} first-load JavaScript, gzip`,
    value: `${kb.toFixed(1)} KB`,
    reference: `budget ${limit} KB (the build fails above it)`,
    goal: `<= ${limit} KB`,
    met: Number.isFinite(limit) ? kb <= limit : null,
  });
}

if (!skip.has('sizes')) {
  part('sizes', 'npm', ['run', 'build', '--silent']);
  sizeFigure('console', part('sizes', 'node', ['admin/scripts/size.mjs']));
  sizeFigure('storefront', part('sizes', 'node', ['storefront/scripts/size.mjs']));
}
part('console', process.execPath, ['--import', 'tsx', 'tests/bench/console-first-load.bench.ts']);
part('api', process.execPath, ['--import', 'tsx', 'tests/bench/api.bench.ts']);
part('storefront', process.execPath, ['--import', 'tsx', 'tests/bench/storefront.bench.ts']);
part('fulfilment', process.execPath, ['--import', 'tsx', 'tests/bench/fulfilment.bench.ts']);
part('reports', process.execPath, ['--import', 'tsx', 'tests/bench/insight.bench.ts'], { BENCH_DATABASES: process.env.BENCH_REPORT_DATABASES ?? 'mysql' });
part('lighthouse', 'npm', ['run', 'bench:lighthouse', '--silent'], skip.has('sizes') ? {} : { BENCH_BUILT: '1' });

const figures: BenchFigure[] = fs.existsSync(resultsFile)
  ? fs
      .readFileSync(resultsFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as BenchFigure)
  : [];
const cell = (s: string) => s.replace(/\|/g, '\\|');
console.log(
  `\n## Benchmarks, ${started.toISOString().slice(0, 10)}: Node ${process.version}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB\n`,
);
console.log('| measure | now | beside (same run) | goal | met |');
console.log('|---|---|---|---|---|');
for (const f of figures)
  console.log(`| ${cell(f.measure)} | ${cell(f.value)} | ${cell(f.reference)} | ${cell(f.goal)} | ${f.met === null ? '' : f.met ? 'yes' : '**no**'} |`);
if (failed.length) console.log(`\nParts that failed (see above): ${failed.join(', ')}`);
fs.rmSync(path.dirname(resultsFile), { recursive: true, force: true });
process.exitCode = failed.length ? 1 : 0;
