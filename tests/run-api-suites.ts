/**
 * Runs the API suite once per database named in TEST_DATABASES (comma list; default
 * "sqlite"). CI sets "sqlite,mysql" with MariaDB on TEST_MYSQL_URL
 * (default mysql://root@127.0.0.1:3306/test); each test file makes and drops its own database.
 */
import { spawnSync } from 'node:child_process';

const databases = (process.env.TEST_DATABASES || 'sqlite')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const extra = process.argv.slice(2);
let failed = false;
for (const database of databases) {
  if (database !== 'sqlite' && database !== 'mysql') {
    console.error(`Unknown database in TEST_DATABASES: ${database}`);
    process.exit(2);
  }
  console.log(`\n=== API suite on ${database} ===\n`);
  const run = spawnSync('npx', ['vitest', 'run', '--project', 'api', ...extra], {
    stdio: 'inherit',
    env: { ...process.env, TEST_DATABASE: database, TZ: 'Africa/Mogadishu' },
  });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
