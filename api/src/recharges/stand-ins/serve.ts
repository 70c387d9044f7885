import { startStandInServer } from './stand-in-server.ts';
import { createWaafiPayStandIn } from './waafipay-stand-in.ts';
import { createReloadlyStandIn } from './reloadly-stand-in.ts';

/**
 * The two stand-ins as a process of their own (`node --import tsx api/src/recharges/stand-ins/serve.ts`):
 * a gateway and an aggregator that outlive the server, as real ones do, for crash tests and for
 * trying the live configuration by hand (WAAFIPAY_URL=<waafipay>/asm, RELOADLY_API_URL=<reloadly>,
 * RELOADLY_AUTH_URL=<reloadly>/oauth/token, with the stand-ins' credentials from the README).
 * Prints one JSON line with both URLs. STAND_IN_WAAFIPAY_PORT / STAND_IN_RELOADLY_PORT (default: any
 * free port), PAYMENT_SANDBOX_APPROVAL_MS, OPERATOR_SANDBOX_LATENCY_MS.
 */
const env = process.env;
const waafipay = await startStandInServer(createWaafiPayStandIn({ approvalMs: Number(env.PAYMENT_SANDBOX_APPROVAL_MS ?? 1500) }).handle, {
  port: Number(env.STAND_IN_WAAFIPAY_PORT ?? 0),
});
const reloadly = await startStandInServer(createReloadlyStandIn({ latencyMs: Number(env.OPERATOR_SANDBOX_LATENCY_MS ?? 800) }).combinedHandle, {
  port: Number(env.STAND_IN_RELOADLY_PORT ?? 0),
});
console.log(JSON.stringify({ waafipay: waafipay.url, reloadly: reloadly.url }));
const close = async () => {
  await Promise.all([waafipay.close(), reloadly.close()]);
  process.exit(0);
};
process.on('SIGTERM', () => void close());
process.on('SIGINT', () => void close());
