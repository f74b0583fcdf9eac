// Appends lines to a file in order; each append resolves once written (and synced, if asked),
// with all lines that arrive meanwhile grouped into one write and at most one sync.
import { fstatSync, ftruncateSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { writeAll } from '../shared/files.js';

export class LineAppender {
  private pending: {
    line: string;
    sync: boolean;
    resolve: () => void;
    reject: (e: unknown) => void;
  }[] = [];
  private flushing: Promise<void> | undefined;
  /** The first write or sync that failed: every append after it is refused with it. */
  private failed: { error: Error } | undefined;

  /**
   * `sync`: a group reaches the disk before its appends resolve (the journal needs that), unless
   * each line of it was appended with `{ sync: false }`.
   */
  constructor(
    private readonly handle: FileHandle,
    private readonly sync: boolean,
  ) {}

  /**
   * `sync: false` is for a line whose loss in a machine crash costs nothing but detail: it is
   * written at once (a killed process loses nothing written) and reaches the disk with the next
   * synced group or at close, without a sync of its own.
   */
  append(line: string, options: { sync?: boolean } = {}): Promise<void> {
    const sync = this.sync && options.sync !== false;
    if (this.failed) return Promise.reject(this.failed.error);
    return new Promise((resolve, reject) => {
      this.pending.push({ line, sync, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    // Lines appended in the same turn of the event loop join the first group: the write below is
    // synchronous, so without this wait each would be a group (and a sync) of its own.
    await Promise.resolve();
    while (this.pending.length > 0) {
      const group = this.pending;
      this.pending = [];
      let size: number | undefined;
      try {
        size = fstatSync(this.handle.fd).size;
        writeAll(this.handle, group.map((p) => p.line).join(''));
        if (group.some((p) => p.sync)) await this.handle.datasync();
        for (const p of group) p.resolve();
      } catch (error) {
        this.fail(error, size);
        for (const p of [...group, ...this.pending]) p.reject(error);
        this.pending = [];
      }
    }
    this.flushing = undefined;
  }

  /**
   * A group that could not be written whole (a full disk) is cut back off: a line appended after
   * it would be glued to the torn one, and a reader skips such a line, so a batch it records as
   * sent would read as never sent. A synced appender (the journal) appends nothing after it
   * either: a batch whose intent could not be recorded must not be followed by batches whose
   * intent is. A log of delivery reports goes on once there is room again.
   */
  private fail(error: unknown, size: number | undefined): void {
    if (this.sync) {
      this.failed ??= { error: error instanceof Error ? error : new Error(String(error)) };
    }
    if (size === undefined) return;
    try {
      ftruncateSync(this.handle.fd, size);
    } catch {
      // The file keeps its torn line; appends are refused all the same.
    }
  }

  /** Waits for what was appended, syncs, and closes the file. */
  async close(): Promise<void> {
    await this.flushing;
    await this.handle.sync();
    await this.handle.close();
  }
}
