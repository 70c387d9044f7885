// Used by the knex CLI (see README: "Database for DBAs"). The app builds the same config itself.
import { knexConfig } from './config.ts';

export default knexConfig(process.env, { purpose: 'maintenance' });
