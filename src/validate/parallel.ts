// Large CSV and NDJSON files are validated on every core: worker threads take byte ranges, merged in order.
import { availableParallelism } from 'node:os';
import { open, stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { openCsv } from '../input/csv.js';
import { InputError } from '../input/errors.js';
import { csvDelimiter, type InputFile } from '../input/open.js';
import { QuoteScanner } from '../input/quotes.js';
import type { InputFormat } from '../input/types.js';
import { checkColumns, planColumns, type FileProblem } from '../message/columns.js';
import type { RecordChecker } from './checker.js';
import { buildChunk, readChunk, type ChunkBase, type ChunkSpec } from './chunk.js';
import type { CampaignOptions, ChunkResult } from './types.js';

/**
 * Each worker costs CPU to start (modules, number rules) and memory of its own, which smaller
 * files do not win back on a machine shared with other work; above this size the second core is
 * worth its price (docs/benchmark.md#measured-choices-in-the-code).
 */
const PARALLEL_MIN_BYTES = 64 * 1024 * 1024;
/** Parts of this size keep few records alive at a time in a worker (1 MiB cost more GC). */
const CHUNK_BYTES = 256 * 1024;
/**
 * A worker's young generation, in MB: V8 would let each grow larger, which a run's peak memory
 * pays for; the limit costs a little CPU in more frequent young collections (docs/benchmark.md#measured-choices-in-the-code). It is a
 * documented option of worker threads, not a V8 flag.
 */
const WORKER_YOUNG_MB = 6;

/** A file that workers will read: where its records start, and how records end. */
interface FileSplit {
  input: InputFile;
  format: 'csv' | 'ndjson';
  size: number;
  start: number;
  line: number;
  columns?: readonly string[];
  recordDelimiter: '\n' | '\r\n';
  /** Missing columns: the file's records are skipped, as on the main thread. */
  problems: FileProblem[];
}

/** What the main thread sends a worker, and what it answers. */
export type ToWorker =
  { type: 'chunk'; spec: ChunkSpec } | { type: 'base'; seq: number; base: ChunkBase };
export type FromWorker =
  | { type: 'counted'; seq: number; records: number; lines: number }
  | { type: 'done'; seq: number; result: ChunkResult }
  | { type: 'failed'; seq: number; error: WorkerError };

/** An error as it crosses threads: an input error keeps its file and (part-relative) line. */
export interface WorkerError {
  message: string;
  file?: string;
  line?: number;
  reason?: string;
}

/** The campaign options a worker needs, as plain data (the template as its source). */
export interface WorkerSetup {
  options: Omit<CampaignOptions, 'template'> & { template?: string };
}

interface Chunk {
  spec: ChunkSpec;
  worker: number;
  counted?: { records: number; lines: number };
  base?: ChunkBase;
  result?: ChunkResult;
  error?: WorkerError;
  posted?: boolean;
  /** Wakes the reader waiting for this chunk. */
  wake?: () => void;
}

/**
 * Splits large files between worker threads and gives back their results in input order. The
 * workers number nothing themselves until told where their part starts (rows and lines of the
 * parts before it), so MessageIds, rows and `file:line` are exactly the main thread's.
 */
export class ParallelReader {
  private workers: Worker[] | undefined;
  private chunks = new Map<number, Chunk>();
  private seq = 0;
  private failure: Error | undefined;

  constructor(
    private readonly options: CampaignOptions,
    private readonly checker: RecordChecker,
  ) {}

  /** How many workers to use: none when the options or the file do not allow it. */
  private get count(): number {
    const parallel = this.options.parallel;
    // Order-dependent options (--limit, --dedupe) and suppression lists (held in typed arrays a
    // worker would need copied) keep the file on this thread.
    const { limit, dedupe, suppress, sentBy, seenBy } = this.options;
    if (!parallel || limit !== undefined || dedupe || suppress || sentBy || seenBy) return 0;
    // Each worker needs a core of its own beside this thread's: on 2 cores, two workers made a
    // large dry run slower and larger, not faster (docs/input.md#large-inputs).
    return parallel.workers ?? (availableParallelism() >= 4 ? 2 : 0);
  }

  /** The split of a file, or undefined when the main thread should read it. */
  async split(input: InputFile, format: InputFormat): Promise<FileSplit | undefined> {
    const parallel = this.options.parallel;
    // --limit and --dedupe depend on every record before: they stay on one thread. So do JSON
    // arrays (no safe place to split without parsing) and standard input (read once, in order).
    if (!parallel || this.count < 1 || format === 'json' || input.label === '-') return undefined;
    let size: number;
    try {
      size = (await stat(input.path)).size;
    } catch {
      return undefined;
    }
    if (size < (parallel.minBytes ?? PARALLEL_MIN_BYTES)) return undefined;
    if (format === 'ndjson') {
      return { input, format, size, start: 0, line: 1, recordDelimiter: '\n', problems: [] };
    }
    // Anything unusual about the header (an error, a bare CR line end) is left to the main thread,
    // which reports it as it always does.
    let header;
    try {
      header = await openCsv(input.path, {
        delimiter: csvDelimiter(input, { delimiter: this.options.delimiter }),
        label: input.label,
        headerOnly: true,
      });
    } catch {
      return undefined;
    }
    const end = await headerEnd(input.path);
    if (!end || end.line !== header.lineAfterHeader) return undefined;
    const plan = planColumns(
      header.columns,
      this.options.mapping,
      this.options.template !== undefined,
    );
    const problems = checkColumns(input.label, header.columns, plan, this.options);
    return { input, format, size, ...end, columns: header.columns, problems };
  }

  /** The results of a file's parts, in order; the checker's row and ids move past them. */
  async *read(split: FileSplit): AsyncGenerator<ChunkResult> {
    const workers = this.start();
    const boundaries = new Boundaries(split);
    const ahead = workers.length * 2;
    let start = split.start;
    let first = this.seq;
    let last = this.seq;
    const dispatch = async (): Promise<void> => {
      while (start < split.size && last - first < ahead) {
        const end = await boundaries.after(
          start + (this.options.parallel!.chunkBytes ?? CHUNK_BYTES),
        );
        const seq = last++;
        const body = {
          start,
          end,
          line: 1,
          recordDelimiter: split.recordDelimiter,
          ...(split.columns ? { columns: split.columns } : {}),
        };
        const spec: ChunkSpec = {
          seq,
          input: split.input,
          format: split.format,
          body,
        };
        const chunk: Chunk = { spec, worker: seq % workers.length };
        this.chunks.set(seq, chunk);
        // The file's first part starts after the rows of the files before; the others after it.
        if (start === split.start) chunk.base = { row: this.checker.row, line: split.line };
        workers[chunk.worker]!.postMessage({ type: 'chunk', spec } satisfies ToWorker);
        this.sendBases();
        start = end;
      }
    };
    try {
      await dispatch();
      this.seq = last;
      while (first < last) {
        const chunk = this.chunks.get(first)!;
        await this.settled(chunk);
        // The part before stays until this one is taken: the next part's start is worked out from it.
        this.chunks.delete(first - 1);
        first++;
        let result: ChunkResult;
        if (chunk.error) throw toError(chunk.error, chunk.base!);
        result = chunk.result!;
        // A MessageId given in an earlier part repeats here: the part is built again, knowing them.
        if (this.checker.seenIds.holdsAny(result.ids)) {
          const { records } = await readChunk(this.options, chunk.spec);
          result = buildChunk(this.options, chunk.spec, records, chunk.base!, this.checker.seenIds);
        }
        this.checker.seenIds.addDigests(result.ids);
        this.checker.row += result.records;
        await dispatch();
        this.seq = last;
        yield result;
      }
    } finally {
      await boundaries.close();
    }
  }

  /** Tells each part where it starts, as soon as every part before it has been counted. */
  private sendBases(): void {
    let previous: Chunk | undefined;
    for (const chunk of this.chunks.values()) {
      if (!chunk.base) {
        if (!previous?.base || !previous.counted) return;
        chunk.base = {
          row: previous.base.row + previous.counted.records,
          line: previous.base.line + previous.counted.lines,
        };
      }
      if (!chunk.posted) {
        chunk.posted = true;
        this.workers![chunk.worker]!.postMessage({
          type: 'base',
          seq: chunk.spec.seq,
          base: chunk.base,
        } satisfies ToWorker);
      }
      previous = chunk;
    }
  }

  private settled(chunk: Chunk): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (chunk.result || chunk.error) return Promise.resolve();
    return new Promise((resolve, reject) => {
      chunk.wake = () => (this.failure ? reject(this.failure) : resolve());
    });
  }

  private start(): Worker[] {
    if (this.workers) return this.workers;
    const parallel = this.options.parallel!;
    // Everything but the files (each part names its own) and the compiled template (a function).
    const { template, ...rest } = this.options;
    const setup: WorkerSetup = {
      options: {
        ...rest,
        files: [],
        template: template?.source,
        parallel: { spool: parallel.spool, digests: parallel.digests, tally: parallel.tally },
      },
    };
    const url = parallel.worker?.url ?? new URL('./worker.js', import.meta.url);
    this.workers = Array.from({ length: this.count }, () => {
      const worker = new Worker(url, {
        workerData: setup,
        execArgv: parallel.worker?.execArgv,
        resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
      });
      worker.on('message', (message: FromWorker) => this.receive(message));
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`a validation worker stopped (exit code ${code})`));
      });
      return worker;
    });
    return this.workers;
  }

  private receive(message: FromWorker): void {
    const chunk = this.chunks.get(message.seq);
    if (!chunk || !this.workers) return;
    if (message.type === 'counted') {
      chunk.counted = { records: message.records, lines: message.lines };
      this.sendBases();
      return;
    }
    if (message.type === 'done') chunk.result = message.result;
    else chunk.error = message.error;
    chunk.wake?.();
  }

  private fail(error: Error): void {
    if (this.closing) return;
    this.failure ??= error;
    for (const chunk of this.chunks.values()) chunk.wake?.();
  }

  private closing = false;

  async close(): Promise<void> {
    this.closing = true;
    const workers = this.workers ?? [];
    this.workers = undefined;
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

/** An error a worker met, with its line moved from the part's numbering to the file's. */
function toError(error: WorkerError, base: ChunkBase): Error {
  if (error.file !== undefined && error.reason !== undefined) {
    const line = error.line === undefined ? undefined : error.line + base.line - 1;
    return new InputError(error.file, line, error.reason);
  }
  return new Error(error.message);
}

/**
 * Where the header's record ends, the line after it, and the record delimiter csv-parse will
 * have found there (the first line break outside quotes). Undefined when the header is not in the
 * first megabyte or lines end in a bare CR: the main thread reads such a file.
 */
async function headerEnd(
  path: string,
): Promise<{ start: number; line: number; recordDelimiter: '\n' | '\r\n' } | undefined> {
  const handle = await open(path, 'r');
  let bytes: Buffer;
  try {
    const buffer = Buffer.alloc(1024 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    bytes = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  const quotes = new QuoteScanner();
  let lineStart = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let delimiter: '\n' | '\r\n' | undefined;
  for (let at = quotes.findBreak(bytes, lineStart, bytes.length); at !== -1;) {
    const byte = bytes[at];
    if (delimiter === undefined) {
      if (byte === 13 && bytes[at + 1] !== 10) return undefined;
      delimiter = byte === 13 ? '\r\n' : '\n';
    }
    if (byte === 10) {
      const blank = at - lineStart === (delimiter === '\r\n' ? 1 : 0);
      // The line after the record: every line break before it counts, quoted ones too.
      if (!blank)
        return { start: at + 1, line: 1 + lineBreaks(bytes, at + 1), recordDelimiter: delimiter };
      lineStart = at + 1;
    }
    at = quotes.findBreak(bytes, at + 1, bytes.length);
  }
  return undefined;
}

function lineBreaks(bytes: Buffer, end: number): number {
  let n = 0;
  for (let at = bytes.indexOf(10); at !== -1 && at < end; at = bytes.indexOf(10, at + 1)) n++;
  return n;
}

/** Finds record boundaries: the first line break outside quotes at or after a byte offset. */
class Boundaries {
  private handle: Awaited<ReturnType<typeof open>> | undefined;
  private block = Buffer.alloc(0);
  private blockStart = 0;
  private pos: number;
  private readonly quotes = new QuoteScanner();
  private previous = 0;

  constructor(private readonly split: FileSplit) {
    this.pos = split.start;
  }

  /** The offset just after the first record delimiter (outside quotes) at or after `target`. */
  async after(target: number): Promise<number> {
    const { size, format, recordDelimiter } = this.split;
    const quotes = format === 'csv';
    const crlf = recordDelimiter === '\r\n';
    for (;;) {
      if (this.pos >= size) return size;
      if (this.pos >= this.blockStart + this.block.length) await this.load();
      const block = this.block;
      const local = this.pos - this.blockStart;
      if (this.pos < target) {
        // Only the quotes matter on the way: each one opens or closes a quoted field.
        const stop = Math.min(target - this.blockStart, block.length);
        if (quotes) this.quotes.skip(block, local, stop);
        this.pos = this.blockStart + stop;
        this.previous = block[stop - 1]!;
        continue;
      }
      // A line break inside quotes is a field's, not a record's.
      const nl = quotes
        ? this.quotes.find(block, 10, local, block.length)
        : block.indexOf(10, local);
      if (nl === -1) {
        this.pos = this.blockStart + block.length;
        this.previous = block[block.length - 1]!;
        continue;
      }
      const before = nl > 0 ? block[nl - 1]! : this.previous;
      this.pos = this.blockStart + nl + 1;
      this.previous = 10;
      if (!crlf || before === 13) return this.pos;
    }
  }

  private async load(): Promise<void> {
    this.handle ??= await open(this.split.input.path, 'r');
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    const { bytesRead } = await this.handle.read(buffer, 0, buffer.length, this.pos);
    this.block = buffer.subarray(0, bytesRead);
    this.blockStart = this.pos;
    if (bytesRead === 0) this.pos = this.split.size;
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }
}
