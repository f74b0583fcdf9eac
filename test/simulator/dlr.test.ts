// Optional delivery reports: placeholders filled, GET to the message's DeliveryReportUrl, off by default.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fillTemplate } from '../../src/simulator/dlr.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { message, send } from './helpers.js';

let receiver: http.Server;
let received: { method: string; url: URL }[];
let base: string;
const started: Simulator[] = [];

beforeEach(async () => {
  received = [];
  receiver = http.createServer((req, res) => {
    received.push({ method: req.method ?? '', url: new URL(req.url ?? '/', 'http://receiver') });
    res.end('ok');
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

const template = () =>
  `${base}/Sms/Dr?msgid=[$MSGID]&status=[$STATUS]&timestamp=[$TIMESTAMP]&gateway=[$GATEWAY]&mnc=[$MNC]&mcc=[$MCC]`;

describe('delivery reports', () => {
  it('calls the filled-in DeliveryReportUrl with GET for each accepted message', async () => {
    const sim = await start({ deliveryReports: {} });
    const reply = await send(sim, [
      message({ MessageId: 'id one', DeliveryReportUrl: template() }),
      message({ MessageId: 'rejected', Gateway: 0, DeliveryReportUrl: template() }),
      message({ MessageId: 'no-url' }),
    ]);
    expect(reply.json.Messages?.map((r) => r.StatusCode)).toEqual([0, 101, 0]);
    await sim.deliveryReportsSettled();

    expect(received).toHaveLength(1);
    const report = received[0];
    expect(report?.method).toBe('GET');
    expect(report?.url.pathname).toBe('/Sms/Dr');
    expect(Object.fromEntries(report?.url.searchParams ?? [])).toEqual({
      msgid: 'id one',
      status: 'DELIVRD',
      timestamp: expect.stringMatching(/^\d{14}$/) as string,
      gateway: '99700999',
      mnc: '01',
      mcc: '242',
    });
    expect(sim.deliveryReports).toEqual([
      {
        messageId: 'id one',
        transactionId: reply.json.Messages?.[0]?.TransactionId,
        url: expect.stringContaining('msgid=id%20one') as string,
        httpStatus: 200,
        error: undefined,
      },
    ]);
  });

  it('uses the configured status', async () => {
    const sim = await start({ deliveryReports: { status: 'UNDELIV' } });
    await send(sim, [message({ DeliveryReportUrl: template() })]);
    await sim.deliveryReportsSettled();
    expect(received[0]?.url.searchParams.get('status')).toBe('UNDELIV');
  });

  it('records an unusable URL as an error instead of failing', async () => {
    const sim = await start({ deliveryReports: {} });
    await send(sim, [
      message({ MessageId: 'a', DeliveryReportUrl: 'not a url [$MSGID]' }),
      message({ MessageId: 'b', DeliveryReportUrl: 'ftp://example.com/[$MSGID]' }),
    ]);
    await sim.deliveryReportsSettled();
    expect(sim.deliveryReports.map((r) => [r.messageId, r.httpStatus, r.error])).toEqual([
      ['a', undefined, 'DeliveryReportUrl is not a valid URL'],
      ['b', undefined, 'unsupported scheme ftp:'],
    ]);
  });

  it('sends nothing unless turned on', async () => {
    const off = await start();
    await send(off, [message({ MessageId: 'off', DeliveryReportUrl: template() })]);
    const on = await start({ deliveryReports: {} });
    await send(on, [message({ MessageId: 'on', DeliveryReportUrl: template() })]);
    await on.deliveryReportsSettled();
    await off.deliveryReportsSettled();
    expect(received.map((r) => r.url.searchParams.get('msgid'))).toEqual(['on']);
    expect(off.deliveryReports).toEqual([]);
  });

  it('drops pending reports on stop()', async () => {
    const sim = await start({ deliveryReports: { delayMs: 60_000 } });
    await send(sim, [message({ DeliveryReportUrl: template() })]);
    await sim.stop();
    await sim.deliveryReportsSettled();
    expect(received).toHaveLength(0);
  });
});

describe('fillTemplate', () => {
  it('URL-encodes known placeholders and leaves unknown ones alone', () => {
    expect(fillTemplate('x?a=[$MSGID]&b=[$OTHER]&c=[$MSGID]', { MSGID: 'a&b c' })).toBe(
      'x?a=a%26b%20c&b=[$OTHER]&c=a%26b%20c',
    );
  });
});
