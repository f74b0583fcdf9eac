// A worker thread of the validation pass: reads and builds the parts of a large file it is given.
import { parentPort, workerData } from 'node:worker_threads';
import { InputError } from '../input/errors.js';
import type { InputRecord } from '../input/types.js';
import type { CampaignOptions } from './types.js';
import { buildChunk, readChunk, type ChunkBase, type ChunkSpec } from './chunk.js';
import type { FromWorker, ToWorker, WorkerError, WorkerSetup } from './parallel.js';
import { compileTemplate } from '../message/template.js';

const { options: setup } = workerData as WorkerSetup;
const options: CampaignOptions = {
  ...setup,
  template: setup.template === undefined ? undefined : compileTemplate(setup.template),
};
const port = parentPort!;

/** Parts to do, one at a time in the order given; and the starts the main thread has sent. */
const queue: ChunkSpec[] = [];
const bases = new Map<number, ChunkBase>();
const waiting = new Map<number, (base: ChunkBase) => void>();
let busy = false;

port.on('message', (message: ToWorker) => {
  if (message.type === 'base') {
    const wake = waiting.get(message.seq);
    if (wake) {
      waiting.delete(message.seq);
      wake(message.base);
    } else bases.set(message.seq, message.base);
    return;
  }
  queue.push(message.spec);
  if (!busy) void work();
});

function baseOf(seq: number): Promise<ChunkBase> {
  const base = bases.get(seq);
  if (base) {
    bases.delete(seq);
    return Promise.resolve(base);
  }
  return new Promise((resolve) => waiting.set(seq, resolve));
}

async function work(): Promise<void> {
  busy = true;
  for (let spec = queue.shift(); spec; spec = queue.shift()) {
    const { seq } = spec;
    let read: { records: InputRecord[]; lines: number };
    try {
      read = await readChunk(options, spec);
    } catch (error) {
      // Counted as empty: nothing after an error is used, but the parts after may wait on it.
      send({ type: 'counted', seq, records: 0, lines: 0 });
      send({ type: 'failed', seq, error: crossing(error) });
      continue;
    }
    send({ type: 'counted', seq, records: read.records.length, lines: read.lines });
    const base = await baseOf(seq);
    try {
      const result = buildChunk(options, spec, read.records, base);
      const transfer = [
        result.digests?.buffer,
        result.messageRows?.buffer,
        result.spool?.buffer,
        result.ids.buffer,
      ].filter((buffer): buffer is ArrayBuffer => buffer !== undefined);
      port.postMessage({ type: 'done', seq, result } satisfies FromWorker, transfer);
    } catch (error) {
      send({ type: 'failed', seq, error: crossing(error) });
    }
  }
  busy = false;
}

function send(message: FromWorker): void {
  port.postMessage(message);
}

function crossing(error: unknown): WorkerError {
  if (error instanceof InputError) {
    return { message: error.message, file: error.file, line: error.line, reason: error.reason };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}
