// A child process for test/gateway/memory.test.ts (run with --expose-gc): posts batches through the
// gateway client to a loopback server answering as the gateway does, under one run-wide signal as
// a send does, and reports the live heap after a warm-up and after each round that follows.
import { getEventListeners } from 'node:events';
import { systemClock } from '../../src/shared/clock.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayClient } from '../../src/gateway/client.js';

const [warmUp, more, rounds] = [
  Number(process.argv[2] ?? 1000),
  Number(process.argv[3] ?? 3000),
  Number(process.argv[4] ?? 2),
];
const messages = Array.from({ length: 100 }, (_, i) => ({
  StatusCode: 0,
  StatusDescription: 'Accepted',
  MessageId: `m-${i}`,
  TransactionId: `t-${i}`,
}));
const answer = JSON.stringify({ ProcessResult: true, Messages: messages });
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const client = new GatewayClient(
  {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    username: 'u',
    password: 'p',
  },
  { concurrency: 4, timeoutMs: 5_000, proxies: {} },
  systemClock,
);
const run = new AbortController();
const body = Array.from({ length: 100 }, (_, i) => `{"MessageId":"m-${i}"}`);
const ids = messages.map((m) => m.MessageId);

async function post(requests: number): Promise<void> {
  for (let i = 0; i < requests; i += 4) {
    const answers = await Promise.all([0, 1, 2, 3].map(() => client.post(body, ids, run.signal)));
    for (const a of answers) if (a.verdict.kind !== 'results') throw new Error(a.verdict.reason);
  }
}

const gc = (globalThis as { gc?: () => void }).gc!;
const liveHeap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
await post(warmUp);
const heaps = [liveHeap()];
for (let round = 1; round <= rounds; round++) {
  await post(more);
  heaps.push(liveHeap());
}
const listeners = getEventListeners(run.signal, 'abort').length;
await client.close();
server.close();
process.stdout.write(`${JSON.stringify({ heaps, requests: more, listeners })}\n`);
