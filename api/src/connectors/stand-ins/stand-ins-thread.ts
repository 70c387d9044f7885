import { parentPort, workerData } from 'node:worker_threads';
import { createStandIns, type StandInOptions } from './stand-in-config.ts';
import { startStandInServers } from './stand-in-servers.ts';

/**
 * The embedded stand-ins on a thread of their own: the server's event loop then carries only the
 * client side of each call (as with a real gateway), not the gateway's work too. Posts each
 * stand-in's adapter base by name.
 */
const opts = workerData as StandInOptions;
const running = await startStandInServers(createStandIns(opts), opts.ports);
parentPort!.postMessage(running.urls);
parentPort!.on('message', async (message) => {
  if (message === 'close') {
    await running.close();
    parentPort!.postMessage('closed');
  }
});
