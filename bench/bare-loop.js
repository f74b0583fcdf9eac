// The bench's floor, run as its own process: prebuilt RestSmsRequest batches pushed over one undici Pool.
// Usage: node bench/bare-loop.js <url> <records> <concurrency>; prints {loopMs} as JSON on stdout.
import { Pool } from 'undici';
import { requestBodies } from './batches.js';

const [url, recordsArg, concurrencyArg] = process.argv.slice(2);
const records = Number(recordsArg);
const concurrency = Number(concurrencyArg);
const bodies = requestBodies(records);
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
