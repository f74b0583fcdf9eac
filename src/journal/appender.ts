// Appends lines to a file in order; each append resolves once written (and synced, if asked),
// with all lines that arrive meanwhile grouped into one write and at most one sync.
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
      try {
        writeAll(this.handle, group.map((p) => p.line).join(''));
        if (group.some((p) => p.sync)) await this.handle.datasync();
        for (const p of group) p.resolve();
      } catch (error) {
        for (const p of group) p.reject(error);
      }
    }
    this.flushing = undefined;
  }

  /** Waits for what was appended, syncs, and closes the file. */
  async close(): Promise<void> {
    await this.flushing;
    await this.handle.sync();
    await this.handle.close();
  }
}
