// Prints the gzip size (level 9) of the console's initial JavaScript: the entry script of
// dist/index.html plus the chunks it preloads. Lazy chunks are not counted: the sign-in page, the
// layout and every screen load after the entry has rendered (App.tsx, console/areas.ts).
// Exits 1 when the total is over the budget (250 KB gzip; `--budget=<KB>` to try another), so
// `npm run build -w admin`, which runs it after `vite build`, fails.
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUDGET_KB = Number(process.argv.find((a) => a.startsWith('--budget='))?.slice('--budget='.length) ?? 250);
if (!(BUDGET_KB > 0)) {
  console.error('--budget=<KB> takes a positive number of KB.');
  process.exit(2);
}

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
if (!existsSync(join(dist, 'index.html'))) {
  console.error('admin/dist is missing: run `npm run build -w admin` first.');
  process.exit(1);
}
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const files = new Set();
for (const m of html.matchAll(/<script[^>]+type="module"[^>]+src="([^"]+)"/g)) files.add(m[1]);
for (const m of html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g)) files.add(m[1]);
const kb = (bytes) => (bytes / 1024).toFixed(1);
let raw = 0;
let gz = 0;
for (const f of files) {
  const buf = readFileSync(join(dist, f.replace(/^\//, '')));
  const g = gzipSync(buf, { level: 9 }).length;
  raw += buf.length;
  gz += g;
  console.log(`${f}  ${kb(buf.length)} KB  gzip ${kb(g)} KB`);
}
const within = gz <= BUDGET_KB * 1024;
console.log(`Initial JS: ${kb(raw)} KB minified, ${kb(gz)} KB gzip (${files.size} files)`);
console.log(
  `Budget: ${BUDGET_KB} KB gzip: ${within ? 'within' : 'OVER'} (${within ? `${kb(BUDGET_KB * 1024 - gz)} KB to spare` : `${kb(gz - BUDGET_KB * 1024)} KB too much`})`,
);
if (!within) process.exit(1);
