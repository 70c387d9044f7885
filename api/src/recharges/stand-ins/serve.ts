import { startStandInServer } from './stand-in-server.ts';
import { createStandIns, readStandInEnv, standInOptionsFrom } from './stand-in-config.ts';

/**
 * The stand-ins (WaafiPay, Reloadly, DT One, eDahab) as a process of their own (`node --import tsx api/src/recharges/stand-ins/serve.ts`):
 * a gateway and an aggregator that outlive the server, as real ones do, for crash tests, for
 * benchmarks and for trying the live configuration by hand (WAAFIPAY_URL=<waafipay>/asm,
 * RELOADLY_API_URL=<reloadly>, RELOADLY_AUTH_URL=<reloadly>/oauth/token, EDAHAB_API_URL=<edahab>, with the
 * stand-ins' credentials from the README). Prints one JSON line with their URLs. The same variables as the
 * embedded ones: STAND_IN_WAAFIPAY_PORT / STAND_IN_RELOADLY_PORT / STAND_IN_DTONE_PORT / STAND_IN_EDAHAB_PORT (default: any free port),
 * PAYMENT_SANDBOX_APPROVAL_MS, OPERATOR_SANDBOX_LATENCY_MS (milliseconds or a range such as
 * 5000-40000), STAND_IN_LOST_ANSWER_RATE, STAND_IN_UNAVAILABLE_RATE. Each answers its books at
 * GET /_standin/books.
 */
const opts = standInOptionsFrom(readStandInEnv());
const standIns = createStandIns(opts);
const waafipay = await startStandInServer(standIns.waafipay.handle, { port: opts.ports?.waafipay });
const reloadly = await startStandInServer(standIns.reloadly.combinedHandle, { port: opts.ports?.reloadly });
const dtone = await startStandInServer(standIns.dtone.handle, { port: opts.ports?.dtone });
const edahab = await startStandInServer(standIns.edahab.handle, { port: opts.ports?.edahab });
console.log(JSON.stringify({ waafipay: waafipay.url, reloadly: reloadly.url, dtone: `${dtone.url}/v1`, edahab: `${edahab.url}/api/api` }));
const close = async () => {
  await Promise.all([waafipay.close(), reloadly.close(), dtone.close(), edahab.close()]);
  process.exit(0);
};
process.on('SIGTERM', () => void close());
process.on('SIGINT', () => void close());
