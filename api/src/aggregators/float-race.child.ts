import { setTimeout as sleep } from 'node:timers/promises';
import { connectDatabase } from '../database/connection.ts';
import type { OperatorAdapter } from '../connectors/deliveries/operator-adapter.ts';
import { floatAlertsSettled, readFloat } from './float.service.ts';

/**
 * One of the processes of float.test.ts's race: connects to the test's database (DATA_DIR or
 * DATABASE_URL), waits for the agreed instant (RACE_AT), then reads the float of RACE_AGGREGATOR
 * (an aggregator whose balance answer is RACE_BALANCE cents) RACE_READS times, as fast as it can,
 * and exits once its alert emails are sent. Prints what it did as one JSON line.
 */
const aggregator = process.env.RACE_AGGREGATOR ?? 'reloadly';
const balance = Number(process.env.RACE_BALANCE);
const reads = Number(process.env.RACE_READS ?? 5);
const at = Number(process.env.RACE_AT ?? Date.now());

const adapter = {
  name: aggregator,
  system: aggregator,
  sendOperation: 'send',
  capabilities: { lookupByOwnReference: true, balance: true, productList: false, transactionReport: false },
  async balance() {
    await sleep(Math.floor(Math.random() * 5));
    return { status: 'ok' as const, amount: balance, currency: 'USD' };
  },
} as unknown as OperatorAdapter;

const db = connectDatabase(process.env);
try {
  await sleep(Math.max(0, at - Date.now()));
  for (let i = 0; i < reads; i++) await readFloat(db.knex, adapter);
  await floatAlertsSettled();
  console.log(JSON.stringify({ pid: process.pid, reads }));
} finally {
  await db.knex.destroy();
}
