/**
 * `npm run db:seed-demo`: the demo sign-ins on the configured database (DATABASE_URL), made by
 * the same services as the console. `npm start` does this by itself outside production.
 */
import { connectDatabase, migrateAndSeed } from '../database/connection.ts';
import { loadConfig } from '../config.ts';
import { initServerI18n } from '../i18n/server-i18n.ts';
import { configureIds } from '../http/ids.ts';
import { configureSecrets } from '../settings/secret-box.ts';

const config = loadConfig();
configureIds(config.appKey);
configureSecrets(config.appKey);
initServerI18n();
const db = connectDatabase();
migrateAndSeed(db, { seedDemo: true, dataDir: config.dataDir })
  .then(() =>
    console.log(
      'Demo data seeded: admin@example.com / Admin@12345, dealer@example.com / Dealer@12345 (dealer DEMO), hodan@example.com / Dealer@12345 (dealer HODAN)',
    ),
  )
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => db.knex.destroy());
