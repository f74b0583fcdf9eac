// A child process for test/gateway/memory.test.ts: posts batches through the gateway client to a
// loopback server answering as the gateway does, then reports V8's peak compiler memory.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getHeapStatistics } from 'node:v8';
import { GatewayClient } from '../../src/gateway/client.js';

const REQUESTS = Number(process.argv[2] ?? 300);
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
const client = new GatewayClient({
  endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  username: 'u',
  password: 'p',
  connections: 4,
  timeoutMs: 5_000,
});
for (let i = 0; i < REQUESTS; i += 4) {
  await Promise.all([0, 1, 2, 3].map(() => client.post(['{"MessageId":"m-0"}'], ['m-0'])));
}
await client.destroy();
server.close();
process.stdout.write(`${getHeapStatistics().peak_malloced_memory}\n`);
