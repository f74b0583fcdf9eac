// A campaign's journal in the database: lines appended in order, grouped into one statement while
// one is in flight, each statement checking the run's fencing number (and renewing its lease), so
// a batch is posted only once its record is committed by the run that still holds the campaign.
import { monotonicClock } from '../../shared/clock.js';
import { DiskFile } from '../../shared/disk.js';
import type { JournalLine, JournalSink } from '../lines.js';
import { JournalReader, type JournalState } from '../reading.js';
import { SentRecipients, type SentTo } from '../sent.js';
import { HoldLostError } from '../store.js';
import type { Database, Queries } from './connect.js';
import { databaseError } from './failures.js';
import type { Lease } from './lease.js';
import { appendLines as appendStatement } from './sql/append-lines.js';
import { currentFence } from './sql/current-fence.js';
import { everyJournalPage, type JournalPlace } from './sql/every-journal-page.js';
import { journalPage } from './sql/journal-page.js';

interface Pending {
  line: string;
  keep: boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Appends `lines` under the lease's number: none is written when another run took the campaign
 * over (HoldLostError), and a written one renews the lease.
 */
export async function appendLines(
  db: Queries,
  lease: Lease,
  lines: readonly string[],
): Promise<void> {
  const sentAt = monotonicClock.now();
  if (!(await appendStatement(db, lease, lease.leaseMs / 1000, lines))) {
    const lost = new HoldLostError(lease.id);
    lease.lose(lost);
    throw lost;
  }
  lease.confirmed(sentAt);
}

/**
 * The journal's sink for a run holding the campaign. The first statement that fails refuses every
 * later intent and holds every later result, as the state directory's journal does after a failed
 * write: rewrite() tries the held ones again, while the run still holds the campaign.
 */
export class DatabaseJournal implements JournalSink {
  private pending: Pending[] = [];
  private flushing: Promise<void> | undefined;
  private held: string[] = [];
  private failed: Error | undefined;

  constructor(
    private readonly db: Database,
    private readonly lease: Lease,
  ) {}

  /** The first failure; a takeover, once known, whatever failed first. */
  get failure(): Error | undefined {
    const lost = this.lease.failure;
    return lost instanceof HoldLostError ? lost : (this.failed ?? lost);
  }

  append(line: JournalLine): Promise<void> {
    const text = JSON.stringify(line);
    const keep = line.t === 'result' || line.t === 'posted';
    if (this.failure) {
      if (!keep) return Promise.reject(this.failure);
      this.held.push(text);
      return Promise.resolve();
    }
    if (keep) {
      // An answer (or a `posted` line) is held until its statement commits, and the run goes on
      // meanwhile, as the state directory's journal goes on without syncing it: statements go
      // one at a time, in order, and none after a failure, so the next intent commits only after
      // it, and a worker never has more than one batch whose answer a kill could lose (it is
      // then unknown, never sent again). A `posted` line waits for the next statement: one of
      // its own would cost a third of the journal's round trips.
      this.pending.push({ line: text, keep, resolve: noop, reject: noop });
      if (line.t !== 'posted') this.flushing ??= this.flush();
      return Promise.resolve();
    }
    const recorded = new Promise<void>((resolve, reject) => {
      this.pending.push({ line: text, keep, resolve, reject });
      this.flushing ??= this.flush();
    });
    // Recorded, a batch leaves only while the lease is confirmed: a run that may have lost its
    // hold posts nothing, and the batch reads as never posted.
    return recorded.then(() => {
      if (!this.lease.mayPost()) throw this.failure ?? new HoldLostError(this.lease.id);
    });
  }

  private async flush(): Promise<void> {
    // Lines appended in the same turn join the first statement.
    await Promise.resolve();
    while (this.pending.length > 0) {
      const group = this.pending;
      this.pending = [];
      // Once a statement failed, nothing more is written: a later intent committed while an
      // earlier answer is only held would leave its worker two batches a kill could lose.
      if (this.failure) {
        this.setAside(group);
        continue;
      }
      try {
        await appendLines(
          this.db,
          this.lease,
          group.map((p) => p.line),
        );
        for (const p of group) p.resolve();
      } catch (error) {
        // Failed at once, before its cause is asked for: what is appended meanwhile is refused.
        const first = this.failed === undefined;
        this.failed ??= error instanceof Error ? error : new Error(String(error));
        const named = await heldElsewhere(this.db, this.lease, error);
        if (first) this.failed = named;
        this.setAside(group);
      }
    }
    this.flushing = undefined;
  }

  /** Lines no statement will write now: answers held for rewrite(), intents refused. */
  private setAside(group: readonly Pending[]): void {
    for (const p of group) {
      if (p.keep) {
        this.held.push(p.line);
        p.resolve();
      } else p.reject(this.failure);
    }
  }

  unrecorded(): JournalLine[] {
    return this.held.map((text) => JSON.parse(text) as JournalLine);
  }

  async rewrite(): Promise<boolean> {
    await this.drain();
    if (this.held.length === 0) return true;
    const lines = [...this.held];
    try {
      await appendLines(this.db, this.lease, lines);
      this.held.splice(0, lines.length);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Writes what waits; false once anything failed. A run that failed (timed out, cut off, paused
   * past its lease) asks the database whether another run took the campaign over meanwhile: that
   * is then what it ends with.
   */
  async settle(): Promise<boolean> {
    await this.drain();
    if (this.failure && !(this.failure instanceof HoldLostError)) {
      await takenOver(this.db, this.lease);
    }
    return this.failure === undefined && this.held.length === 0;
  }

  async close(): Promise<void> {
    await this.drain();
  }

  /** Writes what waits, `posted` lines included. */
  private async drain(): Promise<void> {
    if (this.pending.length > 0) this.flushing ??= this.flush();
    await this.flushing;
  }
}

/**
 * Why a statement failed, as the run should tell it: a run that timed out or lost its connection
 * (paused past its lease, cut off) and finds another run's number on the campaign was taken over;
 * otherwise the database's failure, in its words.
 */
async function heldElsewhere(db: Database, lease: Lease, error: unknown): Promise<Error> {
  if (error instanceof HoldLostError) return error;
  if (await takenOver(db, lease)) return lease.failure!;
  const failure = await databaseError(error, db);
  return failure instanceof Error ? failure : new Error(String(failure));
}

/**
 * Whether another run holds the campaign now (its number on the campaign): the lease is then
 * marked lost to it. False when the database cannot say.
 */
export async function takenOver(db: Queries, lease: Lease): Promise<boolean> {
  try {
    if ((await currentFence(db, lease.id)) === lease.fence) return false;
    lease.lose(new HoldLostError(lease.id));
    return true;
  } catch {
    return false;
  }
}

/**
 * The campaign's current journal, read a page at a time into a reading of this host's (`reading`,
 * a file of the cache's): the reader keeps only where each result line is in it and reads it
 * again when a row is asked about, so a resume of millions holds no more than it does with the
 * state directory. Undefined when the journal has no line.
 */
export async function readDatabaseJournal(
  db: Queries,
  id: string,
  generation: number,
  reading: () => Promise<string>,
): Promise<JournalState | undefined> {
  const path = await reading();
  const reader = new JournalReader(path, `the journal of campaign ${id}`);
  const file = await DiskFile.open(path, 'w');
  let lines = 0;
  try {
    for (let after = '0', start = 0; ;) {
      const page = await journalPage(db, id, generation, after);
      if (page.length === 0) break;
      const text = page.map((row) => `${row.line}\n`).join('');
      file.write(text);
      for (const row of page) {
        const bytes = Buffer.byteLength(row.line);
        reader.line(row.line, { start, bytes });
        start += bytes + 1;
      }
      lines += page.length;
      after = page.at(-1)!.seq;
    }
  } finally {
    await file.close();
  }
  return lines === 0 ? undefined : reader.state();
}

function noop(): void {}

/**
 * Whom a campaign may have sent to, from its journal in the database: every generation (those a
 * --force run set aside first), a page at a time, in the order written.
 */
export async function sentFromDatabase(db: Queries, id: string): Promise<SentTo> {
  const sent = new SentRecipients();
  for (let after: JournalPlace = { generation: 0, seq: '0' }; ;) {
    const page = await everyJournalPage(db, id, after);
    for (const row of page) sent.line(row.line);
    const last = page.at(-1);
    if (!last) break;
    after = { generation: last.generation, seq: last.seq };
  }
  return sent.finish();
}
