// What the gateway sees on the wire: only the headers the interface and HTTP need, and the client
// still knows, for every request, whether its body was fully written.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { systemClock } from '../../src/shared/clock.js';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/gateway/client.js';

const OK = JSON.stringify({ ProcessResult: true, ProcessResultDescription: '', Messages: [] });

let servers: Server[] = [];
let clients: GatewayClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.destroy()));
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
  clients = [];
});

/** A loopback server whose handler sees each request after its body was read in full. */
async function gateway(
  handle: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function client(endpoint: string, connections = 1, timeoutMs = 5_000): GatewayClient {
  const c = new GatewayClient(
    { endpoint, username: 'u', password: 'secret-pw' },
    { concurrency: connections, timeoutMs, proxies: {} },
    systemClock,
  );
  clients.push(c);
  return c;
}

describe('the request on the wire', () => {
  it('carries exactly the headers the interface names plus what HTTP needs, none of its own', async () => {
    const seen: string[][] = [];
    const url = await gateway((req, _body, res) => {
      // rawHeaders keeps names as sent, in order: [name, value, name, value, …].
      seen.push(req.rawHeaders.filter((_, i) => i % 2 === 0));
      res.setHeader('content-type', 'application/json');
      res.end(OK);
    });
    const gw = client(url);
    for (let i = 0; i < 2; i++) expect((await gw.post(['{}'], [''])).httpStatus).toBe(200);
    expect(seen).toEqual([
      ['host', 'connection', 'accept', 'content-type', 'content-length'],
      ['host', 'connection', 'accept', 'content-type', 'content-length'],
    ]);
  });
});

// Whether the body was written decides the verdict: a drop after it is `unknown` (the gateway may
// have the messages), a request never written is safe to retry or `failed`.
describe('whether the body was fully written, known without a header of our own', () => {
  it('a connection dropped after the body was read: unknown, also for requests that waited in the pool', async () => {
    const url = await gateway((req) => req.socket.destroy());
    const gw = client(url, 1);
    const answers = await Promise.all([1, 2, 3].map((i) => gw.post([`{"n":${i}}`], [`m${i}`])));
    expect(answers.map((a) => a.verdict.kind)).toEqual(['unknown', 'unknown', 'unknown']);
  });

  it('a request abandoned while it waited in the pool was never written: failed, not unknown', async () => {
    let arrived!: () => void;
    const first = new Promise<void>((resolve) => (arrived = resolve));
    const url = await gateway(() => arrived()); // never answers
    const gw = client(url, 1, 300);
    const hung = gw.post(['{"n":1}'], ['m1']);
    await first;
    const abort = new AbortController();
    const queued = gw.post(['{"n":2}'], ['m2'], abort.signal);
    abort.abort();
    expect(await queued).toMatchObject({
      status: 'ABORTED',
      verdict: {
        kind: 'failed',
        reason: expect.stringMatching(/^aborted before sending/) as unknown,
      },
    });
    // The first one times out waiting for an answer to a request it did write.
    // One deadline on the whole request: --timeout means what it says, in plain words.
    expect((await hung).verdict).toEqual({
      kind: 'unknown',
      reason: 'no answer within 0.3s (timeout)',
    });
  });
});

// The answer's body is read from the stream's events: in pieces, cut off, too large, or stalled.
describe("the answer's body", () => {
  const result = (id: string, description: string) => ({
    StatusCode: 0,
    StatusDescription: description,
    MessageId: id,
    TransactionId: `t-${id}`,
  });

  it('is read whole from many small pieces, with characters split between them', async () => {
    const description = 'Godtatt æøå € 👋';
    const body = Buffer.from(
      JSON.stringify({ ProcessResult: true, Messages: [result('m1', description)] }),
    );
    const url = await gateway((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Three bytes at a time, so every multi-byte character is split across pieces.
      const write = (at: number): void => {
        if (at >= body.length) {
          res.end();
          return;
        }
        res.write(body.subarray(at, at + 3));
        setImmediate(() => write(at + 3));
      };
      write(0);
    });
    const answer = await client(url).post(['{"n":1}'], ['m1']);
    expect(answer.verdict).toEqual({
      kind: 'results',
      results: [
        {
          outcome: 'accepted',
          statusCode: 0,
          statusDescription: description,
          transactionId: 't-m1',
        },
      ],
    });
  });

  it('cut off by the gateway halfway: unknown, since it had the request', async () => {
    const url = await gateway((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"ProcessResult":true,"Messages":[');
      setImmediate(() => res.socket?.destroy());
    });
    const answer = await client(url).post(['{"n":1}'], ['m1']);
    expect(answer.verdict.kind).toBe('unknown');
    expect(answer.status).toBe('UND_ERR_SOCKET');
  });

  it('larger than 16 MiB: refused unread, unknown', async () => {
    const piece = Buffer.alloc(1024 * 1024, 0x20);
    const url = await gateway((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"ProcessResult":true,"Messages":[],"pad":"');
      let sent = 0;
      const more = (): void => {
        while (sent < 20) {
          sent++;
          if (!res.write(piece)) {
            res.once('drain', more);
            return;
          }
        }
        res.end('"}');
      };
      more();
    });
    const answer = await client(url).post(['{"n":1}'], ['m1']);
    expect(answer.status).toBe('RESPONSE_TOO_LARGE');
    expect(answer.verdict).toEqual({
      kind: 'unknown',
      reason: 'the answer was too large after the request was sent',
    });
  });

  it('stalled halfway past the deadline: unknown, in plain words', async () => {
    const url = await gateway((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"ProcessResult":true,');
    });
    const answer = await client(url, 1, 300).post(['{"n":1}'], ['m1']);
    expect(answer.verdict).toEqual({ kind: 'unknown', reason: 'no answer within 0.3s (timeout)' });
  });
});
