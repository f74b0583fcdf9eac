// A forward proxy on loopback, as a company's is: CONNECT tunnels (to an https gateway) and
// absolute-form requests (to an http one), with a log of what went through it, credentials it
// may ask for, a status it may refuse tunnels with, and a way to die mid-campaign.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface TestProxy {
  /** `http://127.0.0.1:PORT` (with user:password@ when it asks for credentials). */
  url: string;
  /** `CONNECT host:port`, `POST http://host:port/path`: each request as it came, in order. */
  log: string[];
  /** When set, every CONNECT is answered with this status instead of a tunnel. */
  refuseWith?: number;
  /** Every open connection cut, and no new one taken: a proxy that died. */
  die(): Promise<void>;
  /** Listening again on the same port. */
  revive(): Promise<void>;
  stop(): Promise<void>;
}

export async function startProxy(
  options: { user?: string; password?: string } = {},
): Promise<TestProxy> {
  const sockets = new Set<Socket>();
  const expected =
    options.user === undefined
      ? undefined
      : `Basic ${Buffer.from(`${options.user}:${options.password ?? ''}`).toString('base64')}`;
  const allowed = (req: IncomingMessage) =>
    expected === undefined || req.headers['proxy-authorization'] === expected;
  let server: Server;
  let port = 0;
  const proxy: TestProxy = {
    url: '',
    log: [],
    async die() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async revive() {
      server = serve();
      await listen();
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const serve = (): Server => {
    const created = createServer((req, res) => {
      proxy.log.push(`${req.method} ${req.url}`);
      if (!allowed(req)) {
        res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
        return;
      }
      const target = new URL(req.url ?? '');
      const headers = { ...req.headers };
      delete headers['proxy-authorization'];
      delete headers['proxy-connection'];
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: `${target.pathname}${target.search}`,
          method: req.method,
          headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
    });
    created.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      proxy.log.push(`CONNECT ${req.url}`);
      client.on('error', () => undefined);
      if (!allowed(req) || proxy.refuseWith !== undefined) {
        const status = allowed(req) ? (proxy.refuseWith ?? 502) : 407;
        client.end(`HTTP/1.1 ${status} Refused\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      const [host, at] = (req.url ?? '').split(/:(?=\d+$)/);
      const upstream = connect(Number(at), host!.replace(/^\[|\]$/g, ''), () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
    });
    created.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    return created;
  };
  const listen = () =>
    new Promise<void>((resolve) => {
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  server = serve();
  await listen();
  const auth = options.user === undefined ? '' : `${options.user}:${options.password ?? ''}@`;
  proxy.url = `http://${auth}127.0.0.1:${port}`;
  return proxy;
}
