// The bare loop plus what any send that can be resumed must do: each batch journaled and synced
// before it is sent, its answer parsed, its results journaled and written to a CSV report.
// Usage: node bench/durable-loop.js <url> <records> <concurrency> <folder>; prints {loopMs}.
import { writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { Pool } from 'undici';
import { batchLine, resultLine } from '../dist/journal/lines.js';
import { BATCH, msisdn, requestBodies } from './batches.js';

const [url, recordsArg, concurrencyArg, folder] = process.argv.slice(2);
const records = Number(recordsArg);
const concurrency = Number(concurrencyArg);
const bodies = requestBodies(records);
const journal = await open(join(folder, 'journal.ndjson'), 'a');
const report = await open(join(folder, 'report.csv'), 'w');
writeSync(report.fd, 'row,to,messageId,outcome,statusCode,statusDescription,transactionId\n');
const pool = new Pool(url, { connections: concurrency });

// Batches that wait for a sync together share one, as sms-send's journal does: each resolves
// once a sync begun after its line was written has ended.
let waiting = [];
let syncing = false;
function synced() {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!syncing) void syncAll();
  });
}
async function syncAll() {
  syncing = true;
  while (waiting.length > 0) {
    const group = waiting;
    waiting = [];
    await journal.datasync();
    for (const resolve of group) resolve();
  }
  syncing = false;
}

let next = 0;
const started = performance.now();
const loop = async () => {
  while (next < bodies.length) {
    const batch = next++;
    const first = batch * BATCH;
    const rows = Array.from({ length: Math.min(BATCH, records - first) }, (_, i) => first + i + 1);
    writeSync(journal.fd, `${JSON.stringify(batchLine(`1:${batch}`, rows))}\n`);
    await synced();
    const response = await pool.request({
      method: 'POST',
      path: '/json/reply/RestSmsRequest',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: bodies[batch],
    });
    const answer = JSON.parse(await response.body.text());
    const results = answer.Messages.map((m, i) => [
      rows[i],
      m.StatusCode === 0 ? 'accepted' : 'rejected',
      1,
      m.StatusCode,
      m.StatusDescription,
      m.TransactionId,
    ]);
    const settled = results.map(
      ([row, outcome, attempts, statusCode, statusDescription, transactionId]) => ({
        row,
        outcome,
        attempts,
        statusCode,
        statusDescription,
        transactionId,
      }),
    );
    writeSync(journal.fd, `${JSON.stringify(resultLine(`1:${batch}`, settled))}\n`);
    writeSync(
      report.fd,
      results
        .map(
          ([row, outcome, , code, description, id], i) =>
            `${row},${msisdn(first + i)},${answer.Messages[i].MessageId},${outcome},${code},${description},${id}\n`,
        )
        .join(''),
    );
  }
};
await Promise.all(Array.from({ length: concurrency }, loop));
const loopMs = performance.now() - started;
await pool.close();
await journal.close();
await report.close();
console.log(JSON.stringify({ loopMs }));
