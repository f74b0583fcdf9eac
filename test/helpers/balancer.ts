// An HTTP load balancer on loopback: each request goes to the next of its targets in turn, as a
// Service or an ingress in front of several receivers spreads them.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Balancer {
  url: string;
  /** Requests forwarded to each target, in the order the targets were given. */
  forwarded: number[];
  close(): Promise<void>;
}

export async function startBalancer(ports: readonly number[]): Promise<Balancer> {
  const forwarded = ports.map(() => 0);
  let next = 0;
  const server: Server = createServer((req, res) => {
    const index = next++ % ports.length;
    forwarded[index]!++;
    const upstream = request(
      {
        host: '127.0.0.1',
        port: ports[index],
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end('bad gateway'));
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forwarded,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
