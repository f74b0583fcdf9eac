// The canary's core against the real simulator in-process: delivered, not delivered, interim then final, none in time.
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { runCanary, type CanaryResult } from '../../src/dlr/canary.js';
import { DlrReceiver, urlTemplate } from '../../src/dlr/receiver.js';
import { GatewayClient } from '../../src/gateway/client.js';
import type { RestSmsMessageReq } from '../../src/gateway/types.js';
import { startSimulator, type DeliveryReportOptions } from '../../src/simulator/index.js';

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!();
});

/** One canary run against a fresh simulator reporting as told (or not at all), and a fresh receiver. */
async function canary(
  deliveryReports: DeliveryReportOptions | undefined,
  options: { awaitMs?: number; onAccepted?: (receiverUrl: string, messageId: string) => void } = {},
): Promise<{ result: CanaryResult; interim: string[] }> {
  const sim = await startSimulator({ deliveryReports });
  open.push(() => sim.stop());
  const receiver = await DlrReceiver.start({});
  open.push(() => receiver.stop());
  const client = new GatewayClient(
    { endpoint: sim.url, username: 'tester', password: 'not-a-secret' },
    { concurrency: 1, timeoutMs: 5000, proxies: {} },
    systemClock,
  );
  open.push(() => client.close());
  const deliveryReportUrl = urlTemplate(receiver.url);
  const messageId = 'canary-1';
  const message: RestSmsMessageReq = {
    Gateway: 99700999,
    DestinationAddress: 4741234567,
    Price: 0,
    UserData: 'canary',
    MessageId: messageId,
    DeliveryReportUrl: deliveryReportUrl,
  };
  const interim: string[] = [];
  const result = await runCanary({
    client,
    endpoint: sim.url,
    test: { to: '4741234567', messageId, json: JSON.stringify(message) },
    deliveryReportUrl,
    reports: (onReport) => {
      receiver.on('report', onReport);
      return () => receiver.off('report', onReport);
    },
    awaitMs: options.awaitMs ?? 10_000,
    onAccepted: () => options.onAccepted?.(receiver.url, messageId),
    onInterim: (status) => interim.push(status),
  });
  return { result, interim };
}

describe('runCanary', () => {
  it.each([
    ['DELIVRD', true],
    ['UNDELIV', false],
    ['EXPIRED', false],
  ])('a %s report: delivered %s, with its timings', async (status, delivered) => {
    const { result } = await canary({ status, delayMs: 20 });
    expect(result.ok).toBe(delivered);
    expect(result.message?.statusCode).toBe(0);
    expect(result.delivery).toMatchObject({
      status,
      delivered,
      awaitMs: 10_000,
      interim: [],
      deliveryReportUrl: expect.stringMatching(
        /^http:\/\/127\.0\.0\.1:\d+\/dlr\?msgid=\[\$MSGID\]/,
      ) as unknown,
    });
    expect(result.delivery?.reportAfterMs).toBeGreaterThanOrEqual(result.delivery!.acceptedAfterMs);
    expect(Date.parse(result.delivery!.sentAt)).not.toBeNaN();
    if (!delivered) expect(result.reason).toBe(`the test message was not delivered: ${status}`);
  });

  it('waits past an interim status for the final one', async () => {
    const { result, interim } = await canary(undefined, {
      onAccepted: (url, id) => {
        void fetch(`${url}/dlr?msgid=${id}&status=ENROUTE`).then(() =>
          fetch(`${url}/dlr?msgid=other&status=UNDELIV`).then(() =>
            fetch(`${url}/dlr?msgid=${id}&status=DELIVRD`),
          ),
        );
      },
    });
    expect(interim).toEqual(['ENROUTE']);
    expect(result.delivery).toMatchObject({
      status: 'DELIVRD',
      delivered: true,
      interim: ['ENROUTE'],
    });
    expect(result.ok).toBe(true);
  });

  it('gives up when no report comes in time', async () => {
    const { result } = await canary(undefined, { awaitMs: 150 });
    expect(result.ok).toBe(false);
    expect(result.delivery).toMatchObject({ delivered: false, awaitMs: 150 });
    expect(result.delivery).not.toHaveProperty('status');
    expect(result.delivery).not.toHaveProperty('reportAfterMs');
    expect(result.reason).toBe('no delivery report for canary-1 within 150 ms');
  });
});
