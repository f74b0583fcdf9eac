// HTTP surface of the simulator: routing, format selection, JSONP, body errors and name matching.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestSmsResponse } from '../../src/gateway/types.js';
import { OPERATION_PATH } from '../../src/gateway/types.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { message, nodeRequest, PASSWORD, postRaw, send, USERNAME } from './helpers.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.stop();
});

const validBody = JSON.stringify({
  Username: USERNAME,
  Password: PASSWORD,
  Messages: [message({ MessageId: 'fmt' })],
});

describe('binding', () => {
  it('listens on loopback by default with an ephemeral port', () => {
    expect(sim.url).toBe(`http://127.0.0.1:${sim.port}`);
    expect(sim.port).toBeGreaterThan(0);
  });
});

describe('format selection', () => {
  it('answers JSON when there is no Accept header at all', async () => {
    const reply = await nodeRequest(sim.url + OPERATION_PATH, {
      headers: { 'Content-Type': 'application/json' },
      body: validBody,
    });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect((JSON.parse(reply.text) as RestSmsResponse).Messages?.[0]?.MessageId).toBe('fmt');
  });

  it.each([
    ['an empty Accept header', OPERATION_PATH, {}],
    ['Accept: application/json', OPERATION_PATH, { Accept: 'application/json' }],
    ['Accept: */*', OPERATION_PATH, { Accept: '*/*' }],
    ['Accept: application/*', OPERATION_PATH, { Accept: 'application/*' }],
    ['JSON among others', OPERATION_PATH, { Accept: 'application/xml, application/json;q=0.5' }],
    ['the .json suffix', `${OPERATION_PATH}.json`, { Accept: 'application/xml' }],
    ['format=json', `${OPERATION_PATH}?format=json`, { Accept: 'application/xml' }],
    ['FORMAT=JSON in any case', `${OPERATION_PATH}?format=JSON`, { Accept: 'text/html' }],
    ['a lower-case path', OPERATION_PATH.toLowerCase(), {}],
  ])('answers JSON for %s', async (_name, path, headers: Record<string, string>) => {
    const reply = await postRaw(sim, validBody, {
      path,
      headers: { Accept: '', ...headers },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    const body = JSON.parse(reply.text) as RestSmsResponse;
    expect(body.ProcessResult).toBe(true);
    expect(body.Messages?.[0]?.MessageId).toBe('fmt');
    expect(body.Messages?.[0]?.StatusCode).toBe(0);
  });

  it.each([
    ['Accept: application/xml', OPERATION_PATH, { Accept: 'application/xml' }],
    ['Accept: text/html', OPERATION_PATH, { Accept: 'text/html' }],
    ['JSON refused with q=0', OPERATION_PATH, { Accept: 'application/json;q=0' }],
    ['format=xml', `${OPERATION_PATH}?format=xml`, {}],
    ['format=xml over Accept */*', `${OPERATION_PATH}?format=xml`, { Accept: '*/*' }],
    ['the .xml suffix', `${OPERATION_PATH}.xml`, { Accept: 'application/json' }],
  ])('answers 406 for %s and processes nothing', async (_name, path, headers) => {
    const before = sim.acceptedCount;
    const reply = await postRaw(sim, validBody, { path, headers });
    expect(reply.status).toBe(406);
    expect(reply.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(reply.text).toMatch(/JSON only/);
    expect(sim.acceptedCount).toBe(before);
  });
});

describe('JSONP', () => {
  it.each(['cb', 'a.b_c$1', '$', '_private.handler'])(
    'wraps the response in %s(...)',
    async (name) => {
      const reply = await postRaw(sim, validBody, {
        path: `${OPERATION_PATH}?callback=${encodeURIComponent(name)}`,
      });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^application\/javascript/);
      expect(reply.text.startsWith(`${name}(`)).toBe(true);
      expect(reply.text.endsWith(');')).toBe(true);
      const inner = JSON.parse(reply.text.slice(name.length + 1, -2)) as RestSmsResponse;
      expect(inner.ProcessResult).toBe(true);
      expect(inner.Messages?.[0]?.MessageId).toBe('fmt');
    },
  );

  it('accepts Accept: application/javascript when a callback is given', async () => {
    const reply = await postRaw(sim, validBody, {
      path: `${OPERATION_PATH}?callback=cb`,
      headers: { Accept: 'application/javascript' },
    });
    expect(reply.status).toBe(200);
    expect(reply.text).toMatch(/^cb\(\{"ProcessResult":true/);
  });

  it.each(['1abc', 'a-b', 'alert(1)', 'a..b', 'a.', '', 'x'.repeat(129)])(
    'refuses the callback name %j with 400 and processes nothing',
    async (name) => {
      const before = sim.acceptedCount;
      const reply = await postRaw(sim, validBody, {
        path: `${OPERATION_PATH}?callback=${encodeURIComponent(name)}`,
      });
      expect(reply.status).toBe(400);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.text).toContain('Invalid JSONP callback name');
      expect(sim.acceptedCount).toBe(before);
    },
  );
});

describe('routing', () => {
  it.each([
    ['GET', '/'],
    ['POST', '/'],
    ['POST', '/json/reply/OtherRequest'],
    ['POST', `${OPERATION_PATH}/extra`],
    ['POST', `/pushsms/rest${OPERATION_PATH}`],
  ])('%s %s is 404', async (method, path) => {
    const reply = await postRaw(sim, validBody, { method, path });
    expect(reply.status).toBe(404);
    expect(reply.text).toContain('POST /json/reply/RestSmsRequest');
  });

  it.each(['GET', 'PUT', 'DELETE', 'PATCH'])(
    '%s on the operation is 405 with Allow: POST',
    async (method) => {
      const reply = await postRaw(sim, validBody, { method });
      expect(reply.status).toBe(405);
      expect(reply.headers.get('allow')).toBe('POST');
    },
  );
});

describe('request body', () => {
  it.each([
    ['truncated JSON', '{"Username":'],
    ['an empty body', ''],
    ['an array', '[]'],
    ['a string', '"hello"'],
    ['null', 'null'],
    [
      'Messages that is not an array',
      JSON.stringify({ Username: 'u', Password: 'p', Messages: 5 }),
    ],
  ])('answers 400 SerializationException for %s', async (_name, body) => {
    const reply = await postRaw(sim, body);
    expect(reply.status).toBe(400);
    const parsed = JSON.parse(reply.text) as {
      ResponseStatus: { ErrorCode: string; Message: string };
    };
    expect(parsed.ResponseStatus.ErrorCode).toBe('SerializationException');
    expect(parsed.ResponseStatus.Message.length).toBeGreaterThan(0);
  });

  it.each([
    ['a bare word', `{"Username":"u","Password":${PASSWORD}}`],
    ['an unterminated string', `{"Username":"u","Password":"${PASSWORD}`],
    ['trailing garbage', `{"Username":"u","Password":"${PASSWORD}"} x`],
  ])('never quotes the body (and so the password) for %s', async (_name, body) => {
    const reply = await postRaw(sim, body);
    expect(reply.status).toBe(400);
    expect(reply.text).toMatch(/invalid JSON/);
    expect(reply.text).not.toContain(PASSWORD);
    expect(reply.text).not.toContain(PASSWORD.slice(0, 6));
  });

  it('answers 415 for a form body', async () => {
    const reply = await postRaw(sim, 'Username=a&Password=b', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(reply.status).toBe(415);
  });

  it('accepts application/json with a charset', async () => {
    const reply = await postRaw(sim, validBody, {
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    expect(reply.status).toBe(200);
  });

  it('answers 413 to a body declared larger than 32 MiB, without reading it', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request(sim.url + OPERATION_PATH, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': 40 * 1024 * 1024 },
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.write('{"Username":"u",');
    });
    expect(status).toBe(413);
    expect(sim.requests.at(-1)?.outcome).toBe('too-large');
  });

  it('matches property names case-insensitively, as the real server does', async () => {
    const body = JSON.stringify({
      username: USERNAME,
      PASSWORD: PASSWORD,
      messages: [
        {
          gateway: 99700999,
          destinationaddress: '4741234567',
          PRICE: 0,
          userData: 'hi',
          messageid: 'ci',
        },
      ],
    });
    const reply = await postRaw(sim, body);
    const parsed = JSON.parse(reply.text) as RestSmsResponse;
    expect(parsed.ProcessResult).toBe(true);
    expect(parsed.Messages).toHaveLength(1);
    expect(parsed.Messages?.[0]).toMatchObject({ StatusCode: 0, MessageId: 'ci' });
    expect(sim.ledger.at(-1)).toMatchObject({ messageId: 'ci', destination: '4741234567' });
  });

  it('reads past a leading byte-order mark', async () => {
    const reply = await postRaw(sim, `\ufeff${validBody}`);
    expect(reply.status).toBe(200);
    expect((JSON.parse(reply.text) as RestSmsResponse).Messages?.[0]?.StatusCode).toBe(0);
  });

  it('ignores properties it does not know', async () => {
    const reply = await send(sim, [message({ MessageId: 'extra', Colour: 'blue' })], { Extra: 1 });
    expect(reply.json.Messages?.[0]?.StatusCode).toBe(0);
  });
});

describe('request records', () => {
  it('records every request with its outcome and never the password', async () => {
    const first = sim.requestCount;
    await send(sim, [message({ MessageId: 'r1' }), message({ MessageId: 'r2', Gateway: 0 })]);
    await postRaw(sim, validBody, { path: '/nowhere' });
    const records = sim.requests.slice(-2);
    expect(records[0]).toEqual({
      seq: first + 1,
      method: 'POST',
      path: OPERATION_PATH,
      messageCount: 2,
      accepted: 1,
      outcome: 'ok',
    });
    expect(records[1]).toMatchObject({ seq: first + 2, path: '/nowhere', outcome: 'not-found' });
    expect(sim.requestCount).toBe(first + 2);
    expect(JSON.stringify(sim.requests)).not.toContain(PASSWORD);
    expect(JSON.stringify(sim.ledger)).not.toContain(PASSWORD);
  });
});
