// Closing the gateway's dispatcher has a bound: whatever undici does with a failed connection, a
// run's end comes. A Pool of composed clients is a close undici really never settled after a
// certificate for another name; the gateway's own Pool closes at once after the same failure.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Client, Pool, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeWithin, openDispatcher } from '../../src/gateway/dispatcher.js';
import { makeCa } from '../helpers/certificates.js';

const ca = makeCa();
let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer(ca.sign(['other.example']), (_request, response) => response.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://localhost:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** One request that fails its TLS handshake: the certificate is for another name. */
async function failOnce(dispatcher: Dispatcher): Promise<string | undefined> {
  const failed = await dispatcher
    .request({ origin, path: '/', method: 'POST', body: '{}' })
    .then(() => undefined)
    .catch((error: { code?: string }) => error.code);
  return failed;
}

describe('closeWithin', () => {
  it('ends a close undici never settles: its connections are destroyed after the bound', async () => {
    const composed = new Pool(origin, {
      connect: { ca: ca.cert },
      factory: (o: URL, options: object) =>
        new Client(o, options).compose((dispatch) => (opts, handler) => dispatch(opts, handler)),
    });
    expect(await failOnce(composed)).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    const hung = await Promise.race([
      composed.close().then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still closing'), 300)),
    ]);
    // What this guards against: if undici mends it, this case no longer proves the bound.
    expect(hung).toBe('still closing');
    expect(['destroyed', 'abandoned']).toContain(await closeWithin(composed, 200));
  });

  it("closes the gateway's own dispatcher at once after the same failure", async () => {
    const dispatcher = openDispatcher(
      new URL(origin),
      { concurrency: 4, timeoutMs: 5_000 },
      undefined,
      [ca.cert],
    );
    expect(await failOnce(dispatcher)).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(await closeWithin(dispatcher, 2_000)).toBe('closed');
  });

  it('destroys at once when asked to abandon what is in flight', async () => {
    const pool = new Pool(origin, { connect: { ca: ca.cert } });
    expect(await closeWithin(pool, 2_000, 'destroy')).toBe('destroyed');
    expect(pool.destroyed).toBe(true);
  });
});
