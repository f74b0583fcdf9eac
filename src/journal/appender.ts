// Appends lines to a file in order; each append resolves once written (and synced, if asked),
// with all lines that arrive meanwhile grouped into one write.
import type { FileHandle } from 'node:fs/promises';

export class LineAppender {
  private pending: { line: string; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;

  /** `sync`: each group reaches the disk before its appends resolve (the journal needs that). */
  constructor(
    private readonly handle: FileHandle,
    private readonly sync: boolean,
  ) {}

  append(line: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ line, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const group = this.pending;
      this.pending = [];
      try {
        await this.handle.write(group.map((p) => p.line).join(''));
        if (this.sync) await this.handle.datasync();
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
