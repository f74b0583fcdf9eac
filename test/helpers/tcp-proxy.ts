// A TCP proxy on loopback the test controls: forwards to a port until told to cut every connection
// (and refuse new ones) or to stop forwarding without closing anything (a network that went quiet).
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Closes every connection at once and refuses new ones. */
  cut(): void;
  /** Forwards nothing more either way, closing nothing: the peers wait. */
  silence(): void;
  /** Takes and forwards connections again, after a cut or a silence. */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let mode: 'open' | 'cut' | 'silent' = 'open';
  const server = createServer((client) => {
    if (mode === 'cut') return client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (mode === 'open') to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      mode = 'cut';
      for (const socket of sockets) socket.destroy();
    },
    silence() {
      mode = 'silent';
    },
    restore() {
      mode = 'open';
    },
    close() {
      mode = 'cut';
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
