import { parentPort, workerData } from 'node:worker_threads';
import { startStandInServer } from './stand-in-server.ts';
import { createWaafiPayStandIn } from './waafipay-stand-in.ts';
import { createReloadlyStandIn } from './reloadly-stand-in.ts';

/**
 * The embedded stand-ins on a thread of their own: the server's event loop then carries only the
 * client side of each call (as with a real gateway), not the gateway's work too.
 */
const { approvalMs, latencyMs } = workerData as { approvalMs: number; latencyMs: number };
const waafipay = await startStandInServer(createWaafiPayStandIn({ approvalMs }).handle);
const reloadly = await startStandInServer(createReloadlyStandIn({ latencyMs }).combinedHandle);
parentPort!.postMessage({ waafipay: waafipay.url, reloadly: reloadly.url });
parentPort!.on('message', async (message) => {
  if (message === 'close') {
    await Promise.all([waafipay.close(), reloadly.close()]);
    parentPort!.postMessage('closed');
  }
});
