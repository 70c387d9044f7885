import { STAND_IN_NAMES, STAND_INS, type StandInName, type StandInsByName } from '../registry.ts';
import { startStandInServer, type RunningStandIn } from './stand-in-server.ts';

/**
 * Every stand-in of the registry on its loopback server: the embedded ones (money-adapters.ts), their
 * thread (stand-ins-thread.ts) and the process of their own (serve.ts) all start them here.
 */
export interface StandInServers {
  servers: Record<StandInName, RunningStandIn>;
  /** Each server's root (its books: GET <root>/_standin/books). */
  roots: Record<StandInName, string>;
  /** The base its adapter is given: the root with the protocol's path (/asm, /v1 ...). */
  urls: Record<StandInName, string>;
  close(): Promise<void>;
}

export async function startStandInServers(standIns: StandInsByName, ports: Partial<Record<StandInName, number>> = {}): Promise<StandInServers> {
  const servers = {} as Record<StandInName, RunningStandIn>;
  for (const name of STAND_IN_NAMES) {
    const definition = STAND_INS[name] as { handler(s: unknown): Parameters<typeof startStandInServer>[0] };
    servers[name] = await startStandInServer(definition.handler(standIns[name]), { port: ports[name] });
  }
  return {
    servers,
    roots: Object.fromEntries(STAND_IN_NAMES.map((n) => [n, servers[n].url])) as Record<StandInName, string>,
    urls: Object.fromEntries(STAND_IN_NAMES.map((n) => [n, `${servers[n].url}${STAND_INS[n].path}`])) as Record<StandInName, string>,
    close: async () => {
      await Promise.all(STAND_IN_NAMES.map((n) => servers[n].close()));
    },
  };
}
