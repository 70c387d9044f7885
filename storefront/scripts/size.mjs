// Prints the gzip size (level 9) of the storefront's first-load JavaScript: the entry script of
// dist/index.html plus the chunks it preloads (asset URLs start with /storefront/), against the 70 KB
// budget, and exits 1 when it is over: `npm run build -w storefront` runs it after vite build, so a
// build that outgrows the budget fails. The stylesheet is inlined in the page (vite.config.ts): its
// size is printed too, outside the budget.
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const BUDGET_KB = 70; // issue 17: first-load JS at most 70 KB gzip
if (!existsSync(join(dist, 'index.html'))) {
  console.error('storefront/dist is missing: run `npm run build -w storefront` first.');
  process.exit(1);
}
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const files = new Set();
for (const m of html.matchAll(/<script[^>]+type="module"[^>]+src="([^"]+)"/g)) files.add(m[1]);
for (const m of html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g)) files.add(m[1]);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const gzip = (buf) => gzipSync(buf, { level: 9 }).length;
let raw = 0;
let gz = 0;
for (const f of files) {
  const buf = readFileSync(join(dist, f.replace(/^\/storefront\//, '')));
  const g = gzip(buf);
  raw += buf.length;
  gz += g;
  console.log(`${f}  ${kb(buf.length)}  gzip ${kb(g)}`);
}
const css = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]).join('');
if (css) console.log(`Inline stylesheet in index.html: ${kb(css.length)}, gzip ${kb(gzip(Buffer.from(css)))} (not counted)`);
console.log(`Initial JS: ${kb(raw)} minified, ${kb(gz)} gzip (${files.size} files)`);
const within = gz / 1024 <= BUDGET_KB;
console.log(`Budget: ${BUDGET_KB} KB gzip: ${within ? 'within' : 'OVER'}`);
if (!within) process.exit(1);
