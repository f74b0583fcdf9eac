// Appends lines to a file in order; each append resolves once written (and synced, if asked),
// with all lines that arrive meanwhile grouped into one write and at most one sync.
import { DiskFile } from '../shared/disk.js';

interface Pending {
  line: string;
  sync: boolean;
  keep: boolean;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export interface AppendOptions {
  /**
   * false: a line whose loss in a machine crash costs nothing but detail. It is written at once
   * (a killed process loses nothing written) and reaches the disk with the next synced group,
   * without a sync of its own.
   */
  sync?: boolean;
  /**
   * A line that must not be lost while the process lives: when a write or sync fails it is held,
   * not refused, and written again by rewrite(). Lines without it are refused (the journal's
   * intents: a batch whose intent was refused is never sent).
   */
  keep?: boolean;
}

/**
 * The durability contract of a synced appender (the journal): an append resolves once its group
 * is written and, if any line of the group asked, synced. The first write or sync that fails
 * refuses every later line that is not kept, and holds every kept one: a failed fsync is never
 * asked again on the same descriptor as if it had worked (the kernel may have dropped the pages
 * it covered), so whatever it covered is cut off and written again on a fresh one (rewrite()).
 */
export class LineAppender {
  private pending: Pending[] = [];
  private flushing: Promise<void> | undefined;
  /** Where the file ends, as written. */
  private end: number;
  /** Where it ends on the disk: its size after the last sync that succeeded. */
  private durable: number;
  /** Kept lines written since that sync: a failed sync means they must be written again. */
  private unsynced: string[] = [];
  /** Kept lines not in the file: the ones a failed write or sync covered, and any since. */
  private held: string[] = [];
  /** The first write or sync that failed (a synced appender only). */
  private failure: Error | undefined;
  /** A sync failed: what the file holds past `durable` may not be on the disk, whatever it reads. */
  private syncFailed = false;

  /**
   * `sync`: a group reaches the disk before its appends resolve (the journal needs that), unless
   * each line of it was appended with `{ sync: false }`.
   */
  constructor(
    private file: DiskFile,
    private readonly sync: boolean,
  ) {
    this.end = file.size();
    this.durable = this.end;
  }

  /** Why lines are being held, once a write or sync has failed. */
  get failed(): Error | undefined {
    return this.failure;
  }

  /** Kept lines that are not on the disk: held after a failure, until rewrite() puts them there. */
  get heldLines(): readonly string[] {
    return this.held;
  }

  append(line: string, options: AppendOptions = {}): Promise<void> {
    const sync = this.sync && options.sync !== false;
    const keep = options.keep === true;
    if (this.failure) {
      if (!keep) return Promise.reject(this.failure);
      this.held.push(line);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ line, sync, keep, resolve, reject });
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
      const start = this.end;
      let written = false;
      try {
        const text = group.map((p) => p.line).join('');
        this.file.write(text);
        written = true;
        this.end += Buffer.byteLength(text);
        for (const p of group) if (p.keep) this.unsynced.push(p.line);
        if (group.some((p) => p.sync)) await this.synced();
        for (const p of group) p.resolve();
      } catch (error) {
        this.fail(error, written ? undefined : start, group);
      }
    }
    this.flushing = undefined;
  }

  /** Syncs what is written; the file is durable up to its end. */
  private async synced(): Promise<void> {
    await this.file.datasync();
    this.durable = this.end;
    this.unsynced = [];
  }

  /**
   * A write that failed (a full disk) is cut back to where it began: a line appended after it
   * would be glued to the torn one. A sync that failed cuts back to the last good sync: what it
   * covered may never reach the disk. A synced appender (the journal) then holds its kept lines
   * and refuses the others; a log of delivery reports refuses the group and goes on once there is
   * room again.
   */
  private fail(error: unknown, tornAt: number | undefined, group: Pending[]): void {
    const cause = error instanceof Error ? error : new Error(String(error));
    if (!this.sync) {
      if (tornAt !== undefined) this.cutTo(tornAt);
      for (const p of group) p.reject(cause);
      return;
    }
    this.failure ??= cause;
    const rest = this.pending;
    this.pending = [];
    if (tornAt === undefined) {
      // The sync failed: everything written since the last good one is in doubt.
      this.syncFailed = true;
      this.cutTo(this.durable);
      this.held.push(...this.unsynced);
      this.unsynced = [];
    } else {
      this.cutTo(tornAt);
      for (const p of group) if (p.keep) this.held.push(p.line);
    }
    for (const p of rest) if (p.keep) this.held.push(p.line);
    for (const p of [...group, ...rest]) {
      if (p.keep) p.resolve();
      else p.reject(cause);
    }
  }

  private cutTo(size: number): void {
    try {
      this.file.truncate(size);
      this.end = size;
    } catch {
      // The file keeps what it has: a torn line is skipped by a reader, and rewrite() cuts again.
    }
  }

  /**
   * After a failure: writes the held lines again on a fresh descriptor and syncs them, after the
   * lines written before the failure, or after a failed sync, from the last good one (what it
   * covered is written again). True once everything kept is durable; false when the disk still
   * refuses (the lines stay held, and the old descriptor is never synced again).
   */
  async rewrite(): Promise<boolean> {
    await this.flushing;
    if (!this.failure) return true;
    const from = this.syncFailed ? this.durable : this.end;
    const text = (this.syncFailed ? [...this.unsynced, ...this.held] : [...this.held]).join('');
    let fresh: DiskFile | undefined;
    let written = false;
    try {
      fresh = await DiskFile.open(this.file.path, 'a');
      fresh.truncate(from);
      if (text !== '') fresh.write(text);
      written = true;
      await fresh.datasync();
    } catch {
      if (written) this.syncFailed = true;
      try {
        fresh?.truncate(from);
      } catch {
        // A reader skips a torn line; the next attempt cuts again.
      }
      await fresh?.close().catch(() => undefined);
      return false;
    }
    await this.file.close().catch(() => undefined);
    this.file = fresh;
    this.end = fresh.size();
    this.durable = this.end;
    this.syncFailed = false;
    this.unsynced = [];
    this.held = [];
    return true;
  }

  /**
   * Makes everything written durable (fsync). True when it is; false when this sync or an earlier
   * write or sync failed, and the kept lines are held for rewrite(): a failed sync at the end of a
   * run is a failure like any other, not a detail of closing.
   */
  async settle(): Promise<boolean> {
    await this.flushing;
    if (this.failure) return false;
    if (this.durable === this.end) return true;
    try {
      await this.file.sync();
    } catch (error) {
      if (!this.sync) throw error;
      this.fail(error, undefined, []);
      return false;
    }
    this.durable = this.end;
    this.unsynced = [];
    return true;
  }

  /** Waits for what was appended, makes it durable, and closes the file; throws while kept lines are held. */
  async close(): Promise<void> {
    try {
      const kept = await this.settle();
      if (this.failure && !kept && (this.held.length > 0 || this.unsynced.length > 0)) {
        throw this.failure;
      }
    } finally {
      await this.file.close();
    }
  }
}
