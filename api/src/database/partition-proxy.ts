import net from 'node:net';

/**
 * For tests: a TCP proxy in front of the database that can play a network partition. Until
 * `partition()` it forwards both ways; after it, every socket stays open and nothing gets through
 * (what a client sees when a link or a firewall drops packets: no reset, no answer), and new
 * connections are accepted and left silent. `heal()` lets traffic through again, except on the
 * connections that lost bytes in between (their protocol stream is broken: they stay silent).
 * Closing a client socket closes its upstream one, so the server ends that session (and rolls
 * back its transaction).
 */
export interface PartitionProxy {
  address: { host: string; port: number };
  partition(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function startPartitionProxy(upstream: { host: string; port: number }): Promise<PartitionProxy> {
  let partitioned = false;
  const sockets = new Set<net.Socket>();
  const silent = new WeakSet<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (partitioned) {
      silent.add(client);
      return;
    }
    const server = net.connect(upstream);
    sockets.add(server);
    server.on('close', () => {
      sockets.delete(server);
      if (!silent.has(client)) client.destroy();
    });
    server.on('error', () => undefined);
    client.on('close', () => server.destroy());
    client.on('data', (chunk) => {
      if (partitioned) silent.add(client);
      if (!silent.has(client)) server.write(chunk);
    });
    server.on('data', (chunk) => {
      if (partitioned) silent.add(client);
      if (!silent.has(client)) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    address: { host: '127.0.0.1', port },
    partition() {
      partitioned = true;
    },
    heal() {
      partitioned = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
