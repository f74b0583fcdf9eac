// The simulator's delivery reports: POST without placeholders, seeded status mix, retries, CLI flags.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deliveryReportsOf, parseStatusMix } from '../../src/cli/commands/simulate.js';
import { UsageError } from '../../src/shared/errors.js';
import { hasPlaceholders } from '../../src/simulator/dlr.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { message, messages, send } from '../simulator/helpers.js';

interface Received {
  method: string;
  url: URL;
  contentType: string | undefined;
  body: string;
}

let receiver: http.Server;
let received: Received[];
/** HTTP statuses the receiver answers with, in turn; 200 once they run out. */
let answers: number[];
let base: string;
const started: Simulator[] = [];

beforeEach(async () => {
  received = [];
  answers = [];
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: new URL(req.url ?? '/', 'http://receiver'),
        contentType: req.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.statusCode = answers.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.stop()));
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

async function start(...args: Parameters<typeof startSimulator>): Promise<Simulator> {
  const sim = await startSimulator(...args);
  started.push(sim);
  return sim;
}

const MIX = { DELIVRD: 0.6, UNDELIV: 0.2, EXPIRED: 0.2 };

describe('simulator delivery reports', () => {
  it('POSTs a JSON body to a DeliveryReportUrl without placeholders', async () => {
    const sim = await start({ deliveryReports: { status: 'EXPIRED' } });
    const reply = await send(sim, [
      message({ MessageId: 'p1', DeliveryReportUrl: `${base}/hook` }),
    ]);
    await sim.deliveryReportsSettled();
    expect(received).toHaveLength(1);
    const [call] = received;
    expect(call).toMatchObject({ method: 'POST', contentType: 'application/json; charset=utf-8' });
    expect(call?.url.pathname).toBe('/hook');
    expect(JSON.parse(call!.body)).toEqual({
      MessageId: 'p1',
      TransactionId: reply.json.Messages?.[0]?.TransactionId,
      Status: 'EXPIRED',
      Timestamp: expect.stringMatching(/^\d{14}$/) as string,
    });
    expect(sim.deliveryReportCalls[0]).toMatchObject({
      method: 'POST',
      status: 'EXPIRED',
      attempts: 1,
      httpStatus: 200,
      error: undefined,
    });
  });

  it('GETs a template with any of the placeholders, the unknown ones left alone', () => {
    expect(hasPlaceholders('http://x/?id=[$MSGID]')).toBe(true);
    expect(hasPlaceholders('http://x/?g=[$GATEWAY]')).toBe(true);
    expect(hasPlaceholders('http://x/?o=[$OTHER]')).toBe(false);
    expect(hasPlaceholders('http://x/hook')).toBe(false);
  });

  it('draws statuses from the mix: the same for the same seed and MessageIds', async () => {
    const template = `${base}/dlr?msgid=[$MSGID]&status=[$STATUS]`;
    const batch = messages(60).map((m) => ({ ...m, DeliveryReportUrl: template }));
    const statusesOf = async (seed: number) => {
      const sim = await start({ seed, deliveryReports: { statusMix: MIX } });
      await send(sim, batch);
      await sim.deliveryReportsSettled();
      return Object.fromEntries(sim.deliveryReportCalls.map((c) => [c.messageId, c.status]));
    };
    const first = await statusesOf(7);
    const again = await statusesOf(7);
    const other = await statusesOf(8);
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
    expect(new Set(Object.values(first))).toEqual(new Set(['DELIVRD', 'UNDELIV', 'EXPIRED']));
    // What the receiver got is what the simulator says it chose.
    const got = received
      .slice(0, 60)
      .map((r) => [r.url.searchParams.get('msgid'), r.url.searchParams.get('status')]);
    expect(Object.fromEntries(got)).toEqual(first);
  });

  it('uses only statuses of positive weight', async () => {
    const sim = await start({ deliveryReports: { statusMix: { DELIVRD: 0, EXPIRED: 1 } } });
    await send(
      sim,
      messages(20).map((m) => ({ ...m, DeliveryReportUrl: `${base}/[$MSGID]` })),
    );
    await sim.deliveryReportsSettled();
    expect(new Set(sim.deliveryReportCalls.map((c) => c.status))).toEqual(new Set(['EXPIRED']));
  });

  it('retries a receiver that does not answer 200', async () => {
    answers = [500, 503];
    const sim = await start({ deliveryReports: { retryDelayMs: 1 } });
    await send(sim, [message({ DeliveryReportUrl: `${base}/dlr?msgid=[$MSGID]` })]);
    await sim.deliveryReportsSettled();
    expect(received).toHaveLength(3);
    expect(sim.deliveryReportCalls[0]).toMatchObject({
      attempts: 3,
      httpStatus: 200,
      error: undefined,
    });
    expect(sim.deliveryReports[0]).toMatchObject({ httpStatus: 200, error: undefined });
  });

  it('gives up after the last retry and says why', async () => {
    answers = [500, 500, 500];
    const sim = await start({ deliveryReports: { retries: 2, retryDelayMs: 1 } });
    await send(sim, [message({ DeliveryReportUrl: `${base}/dlr?msgid=[$MSGID]` })]);
    await sim.deliveryReportsSettled();
    expect(received).toHaveLength(3);
    expect(sim.deliveryReportCalls[0]).toMatchObject({
      attempts: 3,
      httpStatus: 500,
      error: 'receiver answered HTTP 500',
    });
  });

  it('retries a receiver that is not there, and stop() cancels the wait', async () => {
    const sim = await start({ deliveryReports: { retryDelayMs: 60_000 } });
    await send(sim, [message({ DeliveryReportUrl: 'http://127.0.0.1:1/dlr?msgid=[$MSGID]' })]);
    await vi.waitFor(() => expect(sim.deliveryReportCalls[0]?.error).toBeDefined(), {
      timeout: 5_000,
      interval: 10,
    });
    expect(sim.deliveryReportCalls[0]).toMatchObject({ attempts: 1 });
    await sim.stop();
    await sim.deliveryReportsSettled();
    expect(sim.deliveryReportCalls[0]).toMatchObject({
      attempts: 1,
      error: 'simulator stopped before the retry',
    });
  });

  it('refuses an unusable mix', async () => {
    await expect(startSimulator({ deliveryReports: { statusMix: {} } })).rejects.toThrow(
      RangeError,
    );
    await expect(
      startSimulator({ deliveryReports: { statusMix: { DELIVRD: 0 } } }),
    ).rejects.toThrow(/add up to 0/);
    await expect(
      startSimulator({ deliveryReports: { statusMix: { DELIVRD: -1 } } }),
    ).rejects.toThrow(/weight of 0 or more/);
  });
});

describe('simulate --dlr flags', () => {
  it('parses --dlr-mix', () => {
    expect(parseStatusMix('delivered=0.9,undeliverable=0.05, expired=0.05')).toEqual({
      delivered: 0.9,
      undeliverable: 0.05,
      expired: 0.05,
    });
  });

  it.each([
    ['delivered', /must be status=weight/],
    ['=1', /must be status=weight/],
    ['delivered=much', /must be a number/],
    ['delivered=-1', /must be a number/],
    ['a=1,a=2', /given twice/],
    ['a=0,b=0', /add up to 0/],
  ])('refuses --dlr-mix %s', (raw, message) => {
    expect(() => parseStatusMix(raw)).toThrow(UsageError);
    expect(() => parseStatusMix(raw)).toThrow(message);
  });

  it('turns reports on with --dlr, or with --dlr-delay or --dlr-mix alone', () => {
    expect(deliveryReportsOf({})).toBeUndefined();
    expect(deliveryReportsOf({ dlr: true })).toMatchObject({ delayMs: 1000 });
    expect(deliveryReportsOf({ dlrDelay: 5 })).toMatchObject({ delayMs: 5 });
    expect(deliveryReportsOf({ dlrMix: 'X=1' })).toMatchObject({ statusMix: { X: 1 } });
  });
});
