import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../db/config.ts';

/**
 * The deploy files (Dockerfile, compose.yaml, deploy/) and docs/deploy.md agree with the code: the
 * services and their start order, the proxy's upstreams, and every setting they name is one the code
 * reads. No container runtime runs here; tests/production-start.sh runs their commands.
 */
const read = (file: string) => fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8');

/** The code the settings are read in: the API's and the database layer's sources, tests left out. */
function sources(dir: string): string {
  let text = '';
  for (const entry of fs.readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'migrations' && entry.name !== 'seeds') text += sources(rel);
    } else if (/\.(ts|mjs)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) {
      text += read(rel);
    }
  }
  return text;
}
const code = sources('api/src') + sources('db');

/** Settings read by something other than the application: compose, Caddy, MariaDB's image, npm, the shell. */
const NOT_THE_APPLICATION = new Set([
  'SITE_ADDRESS',
  'API_UPSTREAMS',
  'DB_PASSWORD',
  'DB_ROOT_PASSWORD',
  'MARIADB_DATABASE',
  'MARIADB_USER',
  'MARIADB_PASSWORD',
  'MARIADB_ROOT_PASSWORD',
  'HOME',
  'NPM_CONFIG_UPDATE_NOTIFIER',
  'NPM_CONFIG_LOGS_MAX',
  'NPM_CONFIG_FUND',
  'NODE_OPTIONS',
  'NODE_IMAGE',
  'ADMIN_PASSWORD',
  // MySQL's sql_mode flags, named in docs/deploy.md's table.
  'STRICT_TRANS_TABLES',
  'ERROR_FOR_DIVISION_BY_ZERO',
  'NO_AUTO_CREATE_USER',
  'NO_ENGINE_SUBSTITUTION',
  'ONLY_FULL_GROUP_BY',
  'NO_ZERO_IN_DATE',
  'NO_ZERO_DATE',
  'ANSI_QUOTES',
  'NO_BACKSLASH_ESCAPES',
  'PIPES_AS_CONCAT',
]);

/** The application reads it: `process.env.NAME`, `env.NAME`, or a key of a validated schema (`NAME:`). */
const readByCode = (name: string) => new RegExp(`\\b${name}\\b`).test(code);

interface ComposeService {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  volumes?: string[];
  stop_grace_period?: string;
}

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, ComposeService> };
  const s = compose.services;
  const apps = ['api-1', 'api-2', 'worker'];

  it('runs MariaDB, Redis, the migrations once, two API processes, one worker and a reverse proxy', () => {
    expect(Object.keys(s).sort()).toEqual(['api-1', 'api-2', 'mariadb', 'migrate', 'proxy', 'redis', 'worker']);
    expect(s['api-1'].environment!.RECHARGE_WORKER).toBe('false');
    expect(s['api-2'].environment!.RECHARGE_WORKER).toBe('false');
    expect(s.worker.environment!.RECHARGE_WORKER).toBe('true');
    expect(s.migrate.command).toEqual(['sh', '-c', 'npm run --silent db:migrate && npm run --silent db:seed']);
  });

  it('starts each part when what it needs is ready', () => {
    expect(s.migrate.depends_on).toEqual({ mariadb: { condition: 'service_healthy' } });
    for (const name of apps) {
      expect(s[name].depends_on, name).toEqual({ migrate: { condition: 'service_completed_successfully' }, redis: { condition: 'service_healthy' } });
      expect(s[name].healthcheck!.test, name).toEqual(['CMD', 'node', 'deploy/healthcheck.mjs', '/api/v1/health/ready']);
    }
    expect(s.proxy.depends_on).toEqual({ 'api-1': { condition: 'service_healthy' }, 'api-2': { condition: 'service_healthy' } });
    expect(s.mariadb.healthcheck!.test).toBeDefined();
    expect(s.redis.healthcheck!.test).toEqual(['CMD', 'redis-cli', 'ping']);
  });

  it('gives every process the same key, database, Redis and uploads, and the drain its time', () => {
    const envs = [...apps, 'migrate'].map((name) => s[name].environment!);
    for (const key of ['APP_KEY', 'DATABASE_URL', 'REDIS_URL', 'DATA_DIR', 'TRUST_PROXY', 'NODE_ENV']) {
      expect(new Set(envs.map((e) => e[key])).size, key).toBe(1);
    }
    expect(envs[0].NODE_ENV).toBe('production');
    expect(envs[0].TRUST_PROXY).toBe('1');
    for (const name of apps) expect(s[name].volumes, name).toEqual(['uploads:/data']);
    // The drain (DRAIN_TIMEOUT_SECONDS) ends before docker stop's grace does.
    expect(Number(envs[0].DRAIN_TIMEOUT_SECONDS)).toBeLessThan(Number.parseInt(s['api-1'].stop_grace_period!, 10));
  });

  it('lets MariaDB make the report triggers with binary logging on', () => {
    const triggers = fs.readdirSync(path.join(PROJECT_ROOT, 'db/migrations')).filter((f) => read(`db/migrations/${f}`).includes('CREATE TRIGGER'));
    expect(triggers).toContain('20261125A-recharge-day-totals.ts');
    expect(s.mariadb.command).toContain('--log-bin-trust-function-creators=1');
    expect(s.mariadb.command).toContain('--character-set-server=utf8mb4');
  });

  it('names only settings the application reads', () => {
    for (const name of [...apps, 'migrate']) {
      for (const key of Object.keys(s[name].environment!)) expect(readByCode(key), `${name}: ${key}`).toBe(true);
    }
  });
});

describe('deploy/Caddyfile', () => {
  const caddyfile = read('deploy/Caddyfile');
  it('proxies to the two API processes (not the worker), checking their readiness', () => {
    expect(caddyfile).toContain('reverse_proxy {$API_UPSTREAMS:api-1:3000 api-2:3000}');
    expect(caddyfile).toContain('health_uri /api/v1/health/ready');
    expect(caddyfile).toContain('respond /metrics 404');
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  it('builds the apps, installs the production dependencies in a clean stage, runs as node with a health check', () => {
    expect(dockerfile.match(/^FROM /gm)!.length).toBeGreaterThanOrEqual(3);
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev --workspace api --workspace db /m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toContain('CMD ["node", "deploy/healthcheck.mjs", "/api/v1/health/live"]');
    expect(dockerfile).toContain('CMD ["npm", "run", "--silent", "serve"]');
    expect(fs.existsSync(path.join(PROJECT_ROOT, 'deploy/healthcheck.mjs'))).toBe(true);
  });
  it('names only settings the application or the image reads', () => {
    const env = dockerfile.match(/^ENV ([\s\S]*?)^\S/m)![1];
    for (const [, key] of env.matchAll(/([A-Z][A-Z0-9_]+)=/g)) expect(readByCode(key) || NOT_THE_APPLICATION.has(key), key).toBe(true);
  });
});

describe('package.json', () => {
  it('has the scripts the deploy files and docs/deploy.md run', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    for (const name of ['serve', 'build', 'db:migrate', 'db:seed', 'user:create-admin', 'backup', 'restore']) expect(scripts[name], name).toBeDefined();
  });
});

describe('the systemd units and the environment examples', () => {
  it('name only settings the application (or npm) reads', () => {
    for (const file of ['deploy/databundles.service', 'deploy/databundles-worker.service', 'deploy/databundles-migrate.service']) {
      const unit = read(file);
      for (const line of unit.split('\n').filter((l) => l.startsWith('Environment='))) {
        for (const [, key] of line.matchAll(/([A-Z][A-Z0-9_]+)=/g)) {
          if (key === 'Environment') continue;
          expect(readByCode(key) || NOT_THE_APPLICATION.has(key), `${file}: ${key}`).toBe(true);
        }
      }
    }
    for (const file of ['deploy/databundles.env.example', 'deploy/env.example']) {
      for (const [, key] of read(file).matchAll(/^([A-Z][A-Z0-9_]+)=/gm)) expect(readByCode(key) || NOT_THE_APPLICATION.has(key), `${file}: ${key}`).toBe(true);
    }
  });
});

describe('docs/deploy.md', () => {
  const doc = read('docs/deploy.md');
  it('names only settings that exist', () => {
    const named = new Set([...doc.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=[^`]*)?`/g)].map((m) => m[1]));
    // `RELOADLY_*`-style families are checked by their prefix.
    for (const [, prefix] of doc.matchAll(/`([A-Z]+)_\*`/g)) expect(new RegExp(`\\b${prefix}_[A-Z]`).test(code), `${prefix}_*`).toBe(true);
    expect(named.size).toBeGreaterThan(15);
    expect([...named].filter((name) => !readByCode(name) && !NOT_THE_APPLICATION.has(name))).toEqual([]);
  });
  it('names only metrics that exist', () => {
    const metrics = read('api/src/metrics/service-metrics.ts');
    const named = [...doc.matchAll(/`databundles_([a-z_]+)`/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(3);
    for (const name of named) expect(metrics, name).toContain(`\${p}${name}\``);
  });
  it('names files that exist', () => {
    for (const [, file] of doc.matchAll(/`((?:deploy|tests|db\/migrations)\/[\w./-]+|Dockerfile|compose\.yaml)`/g)) {
      expect(fs.existsSync(path.join(PROJECT_ROOT, file)), file).toBe(true);
    }
  });
});
