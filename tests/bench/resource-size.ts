/**
 * `npm run measure:resource`: what one resource costs in code, on each side. Counts lines
 * (all, and code without blank and comment lines) of the API module, the console screens, the
 * schema and the translations, for the registry's worked example (banners) and, for comparison,
 * users and roles, which carry many rules of their own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../db/config.ts';

function files(dir: string, pattern: RegExp): string[] {
  const full = path.join(PROJECT_ROOT, dir);
  if (!fs.existsSync(full)) return [];
  return fs
    .readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter((f) => pattern.test(f) && !/\.test\./.test(f))
    .map((f) => path.join(full, f));
}

function count(paths: string[]): { total: number; code: number } {
  let total = 0;
  let code = 0;
  for (const p of paths) {
    let inBlock = false;
    for (const raw of fs.readFileSync(p, 'utf8').split('\n')) {
      total += 1;
      const line = raw.trim();
      if (inBlock) {
        if (line.includes('*/')) inBlock = false;
        continue;
      }
      if (line === '' || line.startsWith('//')) continue;
      if (line.startsWith('/*')) {
        inBlock = !line.includes('*/');
        continue;
      }
      code += 1;
    }
  }
  return { total, code };
}

function translationLines(key: string): number {
  const file = path.join(PROJECT_ROOT, 'locales', 'en');
  let n = 0;
  for (const ns of ['api.json', 'admin.json']) {
    const json = JSON.parse(fs.readFileSync(path.join(file, ns), 'utf8')) as Record<string, unknown>;
    if (json[key]) n += JSON.stringify(json[key], null, 2).split('\n').length;
  }
  return n;
}

/**
 * The files outside a resource's own folders that name it: the lines a new resource adds to shared
 * files (the registry, the API's mount, the console's table of areas, the test fixtures, the
 * translations). Found by what they import or declare, not by a list kept by hand.
 */
function touchPoints(name: string): string[] {
  const imports = new RegExp(`from '(?:\\.\\.?/)+(?:src/)?${name}(?:/[^']*)?'`);
  const declared = new RegExp(`^\\s{2}'?${name}'?: \\{`, 'm');
  const found: string[] = [];
  for (const dir of ['api/src', 'admin/src', 'contracts/src', 'tests/api']) {
    for (const f of files(dir, /\.tsx?$/)) {
      const rel = path.relative(PROJECT_ROOT, f);
      if (rel.startsWith(`api/src/${name}/`) || rel.startsWith(`admin/src/${name}/`) || rel === `contracts/src/${name}.ts`) continue;
      const text = fs.readFileSync(f, 'utf8');
      if (imports.test(text) || declared.test(text)) found.push(rel);
    }
  }
  for (const ns of ['api.json', 'admin.json'])
    if ((JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'locales', 'en', ns), 'utf8')) as Record<string, unknown>)[name]) found.push(`locales/*/${ns}`);
  return found.sort();
}

const rows: string[] = [];
for (const name of ['banners', 'users', 'roles']) {
  const apiSide = count(files(`api/src/${name}`, /\.ts$/));
  const consoleSide = count(files(`admin/src/${name}`, /\.tsx?$/));
  const schema = count(files('contracts/src', new RegExp(`^${name}\\.ts$`)));
  rows.push(
    `| ${name} | ${apiSide.code} (${apiSide.total}) | ${consoleSide.code} (${consoleSide.total}) | ${schema.code} (${schema.total}) | ${translationLines(name)} |`,
  );
}
console.log('Lines of code per resource: code without blank and comment lines (all lines in brackets); tests excluded.\n');
console.log('| resource | API (api/src/<name>) | console (admin/src/<name>) | schema (contracts/src/<name>.ts) | en translations |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log('\nShared files a resource touches (outside its own folders), found by what imports or declares it:\n');
for (const name of ['banners', 'users', 'roles']) {
  const touched = touchPoints(name);
  console.log(`- ${name}: ${touched.length} files: ${touched.join(', ')}`);
}
console.log(
  '\nShared parts a new resource reuses instead: api/src/http/resource-routes.ts, admin/src/resources/ (form drawer, status toggle, registry glue), admin/src/common/useRecordRoute.ts.',
);
