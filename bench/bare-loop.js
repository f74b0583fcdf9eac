// The bench's floor, run as its own process: prebuilt RestSmsRequest batches pushed over one undici Pool.
// Usage: node bench/bare-loop.js <url> <records> <concurrency>; prints {loopMs} as JSON on stdout.
import { Pool } from 'undici';

const [url, recordsArg, concurrencyArg] = process.argv.slice(2);
const records = Number(recordsArg);
const concurrency = Number(concurrencyArg);
const BATCH = 100;
// The same recipients and texts as the campaign the bench writes for sms-send.
const text = (i) => `Hello N${i}, this is message ${i}`;
const msisdn = (i) => 4741000000 + (i % 8_000_000);

const bodies = [];
for (let start = 0; start < records; start += BATCH) {
  const messages = [];
  for (let i = start; i < Math.min(records, start + BATCH); i++) {
    messages.push({
      Gateway: 99700999,
      DestinationAddress: msisdn(i),
      Price: 0,
      MessageType: '00',
      MessageId: `bench-${i}`,
      UserData: text(i),
    });
  }
  bodies.push(JSON.stringify({ Username: 'bench', Password: 'bench-pw', Messages: messages }));
}
const pool = new Pool(url, { connections: concurrency });
let next = 0;
const started = performance.now();
const loop = async () => {
  while (next < bodies.length) {
    const body = bodies[next++];
    const response = await pool.request({
      method: 'POST',
      path: '/json/reply/RestSmsRequest',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body,
    });
    await response.body.text();
  }
};
await Promise.all(Array.from({ length: concurrency }, loop));
const loopMs = performance.now() - started;
await pool.close();
console.log(JSON.stringify({ loopMs }));
