// The delivery reporter's HTTP calls (undici): a receiver that never answers is a timeout, then a retry.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it, vi } from 'vitest';
import { DeliveryReporter } from '../../src/simulator/dlr.js';

let server: http.Server | undefined;
let reporter: DeliveryReporter | undefined;

afterEach(async () => {
  reporter?.stop();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = reporter = undefined;
});

it('records a receiver that never answers as timed out, after its retries', async () => {
  const seen: string[] = [];
  // Never answers: each call must end by the reporter's own timeout.
  server = http.createServer((req) => seen.push(req.url ?? ''));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  reporter = new DeliveryReporter({ timeoutMs: 50, retries: 1, retryDelayMs: 1 });
  reporter.schedule({
    messageId: 'm1',
    transactionId: 't1',
    destination: '4741234567',
    gateway: 1933,
    template: `http://127.0.0.1:${port}/dlr?id=[$MSGID]&s=[$STATUS]`,
  });
  await reporter.settled();
  expect(reporter.details[0]).toMatchObject({
    attempts: 2,
    httpStatus: undefined,
    error: 'timed out',
    url: `http://127.0.0.1:${port}/dlr?id=m1&s=DELIVRD`,
  });
  await vi.waitFor(() => expect(seen).toEqual(['/dlr?id=m1&s=DELIVRD', '/dlr?id=m1&s=DELIVRD']));
});
