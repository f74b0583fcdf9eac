// One part of a large file, validated by a worker thread (or again on the main thread): read, then built.
import type { CsvBody } from '../input/csv.js';
import type { NdjsonBody } from '../input/json.js';
import { openInput, type InputFile } from '../input/open.js';
import type { InputRecord } from '../input/types.js';
import { planColumns } from '../message/columns.js';
import { RecordChecker } from './checker.js';
import { IdSet } from './ids.js';
import { entryOf } from './entries.js';
import { PlanTally } from './tally.js';
import { spoolLine } from './spool.js';
import type { CampaignOptions, ChunkResult } from './types.js';

/** A byte range of one file; its lines are numbered from 1 until the range's first line is known. */
export interface ChunkSpec {
  seq: number;
  input: InputFile;
  format: 'csv' | 'ndjson';
  body: CsvBody | NdjsonBody;
}

/** Where a part starts in the campaign: the row before its first record, and its first line. */
export interface ChunkBase {
  row: number;
  line: number;
}

/** The records of a part and the lines they span; their lines count from 1. */
export async function readChunk(
  options: CampaignOptions,
  spec: ChunkSpec,
): Promise<{ records: InputRecord[]; lines: number }> {
  const input = await openInput(
    spec.input,
    spec.format,
    { delimiter: options.delimiter },
    spec.body,
  );
  const records: InputRecord[] = [];
  for await (const batch of input.records) for (const record of batch) records.push(record);
  return { records, lines: input.lineAfter!() - 1 };
}

/**
 * Builds a part's records exactly as the main thread would: rows from `base.row + 1`, lines moved
 * to `base.line`, and duplicates of the user-given MessageIds in `seenIds` refused.
 */
export function buildChunk(
  options: CampaignOptions,
  spec: ChunkSpec,
  records: InputRecord[],
  base: ChunkBase,
  seenIds?: IdSet,
): ChunkResult {
  // Over the ids of the parts before, recording this part's own for the main thread.
  const ids = new IdSet(seenIds, true);
  const checker = new RecordChecker(options, base.row, ids);
  const columns = 'columns' in spec.body ? spec.body.columns : undefined;
  const plan = columns && planColumns(columns, options.mapping, options.template !== undefined);
  const parallel = options.parallel;
  const tally = new PlanTally(parallel?.tally ?? {}, parallel?.digests ? 'digests' : undefined);
  const spool = parallel?.spool ? new SpoolBytes() : undefined;
  const rows: number[] = [];
  for (const record of records) {
    record.line += base.line - 1;
    const item = checker.check(record, plan);
    tally.add(item);
    if (spool) {
      const entry = entryOf(item);
      if (entry.kind === 'message') rows.push(entry.row);
      spool.add(spoolLine(entry));
    }
  }
  return {
    seq: spec.seq,
    records: records.length,
    plan: tally.snapshot(),
    ...(parallel?.digests ? { digests: tally.digests() } : {}),
    ...(spool ? { spool: spool.bytes(), messageRows: Int32Array.from(rows) } : {}),
    ids: ids.digests(),
  };
}

const encoder = new TextEncoder();

/**
 * A part's spool lines, encoded as they are made into one growing byte array: joined into one
 * string instead, a part's lines (a megabyte and more) became a large object in the worker's heap
 * and again in the main thread's, each freed only by a full collection, which a large send's
 * peak memory paid for (docs/benchmark.md#measured-choices-in-the-code).
 */
class SpoolBytes {
  private buffer = new Uint8Array(256 * 1024);
  private used = 0;

  add(line: string): void {
    // UTF-8 takes at most three bytes for each UTF-16 code unit.
    if (this.used + line.length * 3 > this.buffer.length) {
      const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.used + line.length * 3));
      grown.set(this.buffer.subarray(0, this.used));
      this.buffer = grown;
    }
    this.used += encoder.encodeInto(line, this.buffer.subarray(this.used)).written;
  }

  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.used);
  }
}
