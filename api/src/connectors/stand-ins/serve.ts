import { createStandIns, readStandInEnv, standInOptionsFrom } from './stand-in-config.ts';
import { startStandInServers } from './stand-in-servers.ts';

/**
 * The stand-ins (every one of the registry: WaafiPay, Reloadly, DT One, eDahab) as a process of their
 * own (`node --import tsx api/src/connectors/stand-ins/serve.ts`): vendors that outlive the server, as
 * real ones do, for crash tests, for benchmarks and for trying the live configuration by hand
 * (WAAFIPAY_URL=<waafipay>/asm, RELOADLY_API_URL=<reloadly>, RELOADLY_AUTH_URL=<reloadly>/oauth/token,
 * DTONE_API_URL=<dtone>/v1, EDAHAB_API_URL=<edahab>/api/api, with the stand-ins' credentials from the
 * README). Prints one JSON line: each server's root by name, and `api` with each protocol's base. The
 * same variables as the embedded ones: STAND_IN_<NAME>_PORT (default: any free port),
 * PAYMENT_SANDBOX_APPROVAL_MS, OPERATOR_SANDBOX_LATENCY_MS (milliseconds or a range such as
 * 5000-40000), STAND_IN_LOST_ANSWER_RATE, STAND_IN_UNAVAILABLE_RATE. Each answers its books at
 * GET <root>/_standin/books.
 */
const opts = standInOptionsFrom(readStandInEnv());
const running = await startStandInServers(createStandIns(opts), opts.ports);
console.log(JSON.stringify({ ...running.roots, api: running.urls }));
const close = async () => {
  await running.close();
  process.exit(0);
};
process.on('SIGTERM', () => void close());
process.on('SIGINT', () => void close());
