import { parentPort, workerData } from 'node:worker_threads';
import { startStandInServer } from './stand-in-server.ts';
import { createStandIns, type StandInOptions } from './stand-in-config.ts';

/**
 * The embedded stand-ins on a thread of their own: the server's event loop then carries only the
 * client side of each call (as with a real gateway), not the gateway's work too.
 */
const opts = workerData as StandInOptions;
const { waafipay: waafipayStandIn, reloadly: reloadlyStandIn, dtone: dtoneStandIn, edahab: edahabStandIn } = createStandIns(opts);
const waafipay = await startStandInServer(waafipayStandIn.handle, { port: opts.ports?.waafipay });
const reloadly = await startStandInServer(reloadlyStandIn.combinedHandle, { port: opts.ports?.reloadly });
const dtone = await startStandInServer(dtoneStandIn.handle, { port: opts.ports?.dtone });
const edahab = await startStandInServer(edahabStandIn.handle, { port: opts.ports?.edahab });
parentPort!.postMessage({ waafipay: waafipay.url, reloadly: reloadly.url, dtone: dtone.url, edahab: edahab.url });
parentPort!.on('message', async (message) => {
  if (message === 'close') {
    await Promise.all([waafipay.close(), reloadly.close(), dtone.close(), edahab.close()]);
    parentPort!.postMessage('closed');
  }
});
