// Collects rows from synchronous events and writes them in order, one write at a time.
import type { RowResult } from '../message/outcome.js';
import type { ReportWriter } from './writer.js';

/**
 * Rows held before they are written without waiting for a batch: a resume reports every record an
 * earlier run settled in one stream, millions of them after a long run. The text of 256 rows
 * stays in V8's young generation; that of 1,024 (over 128 KB) was made in its large-object
 * space, which only a full collection frees (docs/benchmark.md#measured-choices-in-the-code).
 */
const FLUSH_ROWS = 256;

export class ReportSink {
  private buffer: RowResult[] = [];
  private chain: Promise<void> = Promise.resolve();
  private failed: Error | undefined;

  constructor(private readonly writer: ReportWriter) {}

  add(row: RowResult): void {
    this.buffer.push(row);
    if (this.buffer.length >= FLUSH_ROWS) void this.flush();
  }

  /** The first write that failed: nothing is written after it (the journal keeps the results). */
  get failure(): Error | undefined {
    return this.failed;
  }

  /** Queues what has been added; writes never overlap, so rows keep their arrival order. */
  flush(): Promise<void> {
    if (this.buffer.length === 0) return this.chain;
    const rows = this.buffer;
    this.buffer = [];
    this.chain = this.chain
      .then(() => (this.failed ? undefined : this.writer.write(rows)))
      .catch((error: unknown) => {
        this.failed ??= error instanceof Error ? error : new Error(String(error));
      });
    return this.chain;
  }

  /** Writes what is left and closes; throws the first failure, of a write or of the close. */
  async close(): Promise<void> {
    await this.flush();
    if (this.failed) {
      await this.writer.close().catch(() => undefined);
      throw this.failed;
    }
    await this.writer.close();
  }
}
