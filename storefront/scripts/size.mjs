// Prints the gzip size of the storefront's first-load JavaScript: the entry script of dist/index.html
// plus the chunks it preloads (asset URLs start with /storefront/), against the 100 KB budget.
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const BUDGET_KB = 100; // issue budget: first-load JS at most 100 KB gzip
if (!existsSync(join(dist, 'index.html'))) {
  console.error('storefront/dist is missing: run `npm run build -w storefront` first.');
  process.exit(1);
}
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const files = new Set();
for (const m of html.matchAll(/<script[^>]+type="module"[^>]+src="([^"]+)"/g)) files.add(m[1]);
for (const m of html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g)) files.add(m[1]);
let raw = 0;
let gz = 0;
for (const f of files) {
  const buf = readFileSync(join(dist, f.replace(/^\/storefront\//, '')));
  const g = gzipSync(buf, { level: 9 }).length;
  raw += buf.length;
  gz += g;
  console.log(`${f}  ${(buf.length / 1024).toFixed(1)} KB  gzip ${(g / 1024).toFixed(1)} KB`);
}
console.log(`Initial JS: ${(raw / 1024).toFixed(1)} KB minified, ${(gz / 1024).toFixed(1)} KB gzip (${files.size} files)`);
console.log(`Budget: ${BUDGET_KB} KB gzip: ${gz / 1024 <= BUDGET_KB ? 'within' : 'OVER'}`);
