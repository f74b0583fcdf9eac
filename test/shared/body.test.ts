// Capped body reading, shared by the simulator and the dlr receiver: whole, too large, or abandoned.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readCappedBody, type CappedBody } from '../../src/shared/body.js';

const CAP = 1024;
let server: http.Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A loopback server answering each request with how its body was read; resolves with the first result. */
async function serve(): Promise<{ port: number; first: Promise<CappedBody> }> {
  let report!: (read: CappedBody) => void;
  const first = new Promise<CappedBody>((resolve) => (report = resolve));
  server = http.createServer((req, res) => {
    void readCappedBody(req, CAP).then((read) => {
      report(read);
      if (!res.destroyed)
        res.writeHead(read.kind === 'too-large' ? 413 : 200, { Connection: 'close' }).end();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, first };
}

function post(port: number, chunks: Buffer[], headers: http.OutgoingHttpHeaders = {}) {
  const req = http.request({ host: '127.0.0.1', port, method: 'POST', headers });
  req.on('error', () => undefined);
  req.flushHeaders();
  for (const chunk of chunks) req.write(chunk);
  return req;
}

describe('readCappedBody', () => {
  it('gives the whole body when it fits', async () => {
    const { port, first } = await serve();
    post(port, [Buffer.from('{"a":'), Buffer.from('1}')]).end();
    const read = await first;
    expect(read.kind === 'body' && read.body.toString('utf8')).toBe('{"a":1}');
  });

  it('stops at the cap for a chunked body with no declared length', async () => {
    const { port, first } = await serve();
    const req = post(port, [Buffer.alloc(CAP), Buffer.alloc(1)]);
    expect(await first).toEqual({ kind: 'too-large' });
    req.destroy();
  });

  it('refuses a declared length over the cap before reading', async () => {
    const { port, first } = await serve();
    const req = post(port, [], { 'Content-Length': CAP + 1 });
    expect(await first).toEqual({ kind: 'too-large' });
    req.destroy();
  });

  it('says aborted when the client goes away mid-body', async () => {
    const { port, first } = await serve();
    const req = post(port, [Buffer.from('{"a"')], { 'Content-Length': 100 });
    req.on('socket', (socket) => socket.on('connect', () => setImmediate(() => req.destroy())));
    expect(await first).toEqual({ kind: 'aborted' });
  });
});
