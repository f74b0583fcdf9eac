// The append-only journal in the campaign's state folder: each batch is recorded before it is sent
// and after its result, and made durable, so a run killed at any instant can be resumed without sending twice.
import { dirname } from 'node:path';
import { DiskFile, renameFile, syncFolder } from '../shared/disk.js';
import { exists, linesAt, openIfExists } from '../shared/files.js';
import { UsageError } from '../shared/errors.js';
import { LineAppender } from './appender.js';
import { SettledResults } from './results.js';
import {
  encodeResults,
  rangesOf,
  rowsOf,
  type Ranges,
  type ResultColumns,
  type SettledResult,
} from './columns.js';

/** A batch's rows as ranges and its results as columns (docs/architecture.md#the-journal-format). */
export const JOURNAL_VERSION = 2;

/** Journals a --force run set aside when it started sending again: `journal-<time>.ndjson`. */
export const ARCHIVED_JOURNAL = /^journal-\d+\.ndjson$/;

/**
 * Sets the journal aside for a run that sends the campaign again (--force): it stays in the
 * campaign's folder as proof of what was sent, so the campaign never looks unsent meanwhile.
 */
export async function archiveJournal(path: string, at: number): Promise<void> {
  if (!(await exists(path))) return;
  await renameFile(path, path.replace(/journal\.ndjson$/, `journal-${at}.ndjson`));
}

export type JournalLine =
  | { t: 'start'; v: number; campaign: string; run: number; at: string }
  /**
   * A batch about to be sent: its rows as ranges, and their recipients (MSISDN digits, comma
   * separated, in row order), so any host can tell whom a campaign may have sent to
   * (`--skip-sent-by`) from its journal alone.
   */
  | { t: 'batch'; b: string; r: Ranges; to?: string }
  /** The batch's request was written whole: it left for the gateway. */
  | { t: 'posted'; b: string }
  /** The batch's last attempt surely did not reach the gateway: it is not in flight. */
  | { t: 'unsent'; b: string }
  /** A batch's results, as columns of runs. */
  | ({ t: 'result'; b: string } & ResultColumns);

/**
 * Where a run records its journal: each batch before its request leaves (an append resolves once
 * the line is durable), its answers after. Once a write fails, intents are refused (their batches
 * are never sent) and answers are held for rewrite(): an answer the gateway gave is never dropped
 * while the process lives. The state directory's JournalWriter is one; a store of another kind
 * gives its own.
 */
export interface JournalSink {
  append(line: JournalLine): Promise<void>;
  /** The first write that failed; from then on no intent is recorded. */
  readonly failure: Error | undefined;
  /** Answers (and posted lines) held since a failure, not yet durable. */
  unrecorded(): JournalLine[];
  /** Writes what is held again; true once it is all durable. */
  rewrite(): Promise<boolean>;
  /** Makes every line written durable; false when that (or an earlier write) failed. */
  settle(): Promise<boolean>;
  /**
   * Whether a batch whose intent is recorded may leave now: a store shared by hosts says no once
   * this run may have lost its hold on the campaign (the batch then reads as never posted).
   */
  mayPost(): boolean;
  close(): Promise<void>;
}

/**
 * Appends journal lines to the campaign's journal file; each append resolves once its line is on
 * disk (grouped per sync). Once a write or sync fails, intents are refused and results are held
 * for rewrite(), on a fresh descriptor.
 */
export class JournalWriter implements JournalSink {
  private constructor(
    readonly path: string,
    private readonly lines: LineAppender,
  ) {}

  static async open(path: string): Promise<JournalWriter> {
    const created = !(await exists(path));
    const file = await DiskFile.open(path, 'a+');
    try {
      // A new journal's name is synced in its folder before anything is recorded in it: the
      // synced intent of the first batch would otherwise be in a file a crash could leave nameless.
      if (created) await syncFolder(dirname(path));
      // A run killed mid-write leaves a torn last line; the next line must not be glued to it.
      const size = file.size();
      const last = Buffer.alloc(1);
      if (size > 0 && file.read(last, size - 1) === 1 && last[0] !== 10) file.write('\n');
    } catch (error) {
      await file.close();
      throw error;
    }
    return new JournalWriter(path, new LineAppender(file, true));
  }

  /**
   * What is about to be sent is synced before it is sent: after a machine crash, the journal must
   * still know the batch may have reached the gateway. A result line is only written: lost in a
   * machine crash (never in a killed process), its batch reads as in flight, `unknown` on resume
   * and not sent again, so a sync per result (half of all syncs) would buy detail, not safety. The
   * same holds for `posted`, whose loss leaves the batch "recorded, not known to have left".
   */
  append(line: JournalLine): Promise<void> {
    const detail = line.t === 'result' || line.t === 'posted';
    return this.lines.append(`${JSON.stringify(line)}\n`, { sync: !detail, keep: detail });
  }

  /** The first write or sync that failed; from then on no intent is recorded. */
  get failure(): Error | undefined {
    return this.lines.failed;
  }

  /** Results (and posted lines) held since a failure, not yet on the disk. */
  unrecorded(): JournalLine[] {
    return this.lines.heldLines.map((text) => JSON.parse(text) as JournalLine);
  }

  /** Writes what is held again, on a fresh descriptor; true once it is all durable. */
  rewrite(): Promise<boolean> {
    return this.lines.rewrite();
  }

  /** Syncs every line written; false when that (or an earlier write) failed: see `failure`. */
  settle(): Promise<boolean> {
    return this.lines.settle();
  }

  mayPost(): boolean {
    return true;
  }

  close(): Promise<void> {
    return this.lines.close();
  }
}

/**
 * The batch's rows, sorted (the send loop takes them in order, and ranges need them so), with the
 * recipient of each when given (`recipients[i]` is `rows[i]`'s).
 */
export function batchLine(
  batch: string,
  rows: readonly number[],
  recipients?: readonly string[],
): JournalLine {
  const to = new Map(rows.map((row, i) => [row, recipients?.[i] ?? '']));
  const sorted = [...to.keys()].sort((p, q) => p - q);
  const line: JournalLine = { t: 'batch', b: batch, r: rangesOf(sorted) };
  if (recipients) line.to = sorted.map((row) => to.get(row)).join(',');
  return line;
}

export function resultLine(batch: string, rows: readonly SettledResult[]): JournalLine {
  return { t: 'result', b: batch, ...encodeResults(rows) };
}

/** What an earlier run left: the results it recorded, and the rows it sent without an answer. */
export interface JournalState {
  /** The content hash the campaign's runs were started with. */
  campaign: string;
  runs: number;
  /** Whether anything may have reached the gateway: a result, or a batch sent without an answer. */
  sent: boolean;
  results: SettledResults;
  /** Rows of batches recorded as sent with no result since: how many times each was sent. */
  inFlight: Map<number, number>;
  /**
   * Rows in flight whose request no journal line records as written whole: "recorded, not known
   * to have left" (the run was killed before the request left, or its journal failed after it
   * did), where the others are "sent, no answer" (see docs/campaign-state.md#two-kinds-of-unknown).
   */
  unposted: Set<number>;
  /**
   * Results taken from elsewhere since the journal was read (answers a report kept when the
   * journal could not): settled here as if journaled, and journaled by the next run that sends.
   */
  adopted?: Map<number, SettledResult>;
}

/** The state of a campaign no run has journaled. */
export function emptyJournalState(): JournalState {
  return {
    campaign: '',
    runs: 0,
    sent: false,
    results: new SettledResults(),
    inFlight: new Map(),
    unposted: new Set(),
  };
}

/** Takes results recorded outside the journal as settled, no longer in flight (see `adopted`). */
export function adoptResults(state: JournalState, results: readonly SettledResult[]): void {
  if (results.length === 0) return;
  const sorted = [...results].sort((p, q) => p.row - q.row);
  const line = resultLine('report', sorted);
  if (line.t !== 'result') return;
  state.results.setBatch(JSON.stringify(line), line);
  for (const { row } of sorted) {
    state.inFlight.delete(row);
    state.unposted.delete(row);
  }
  state.adopted ??= new Map();
  for (const result of sorted) state.adopted.set(result.row, result);
}

/**
 * Reads a journal back in one pass, a chunk of lines at a time, keeping only what it settles
 * (compactly, see SettledResults) and the batches still waiting for a result.
 */
export async function readJournal(path: string): Promise<JournalState | undefined> {
  const handle = await openIfExists(path);
  if (handle === undefined) return undefined;
  try {
    const reader = new JournalReader(path);
    // Each line's place in the file, so the results' text can be read back rather than held.
    for await (const lines of linesAt(handle))
      for (const line of lines) reader.line(line.text, line);
    return reader.state();
  } finally {
    await handle.close();
  }
}

/** A batch sent and not yet answered: its rows, how often it was sent, when it last was. */
interface Pending {
  ranges: Ranges;
  times: number;
  /** The results' mark when it was last sent: a row settled since is no longer in flight. */
  mark: number;
  /** A `posted` line says one of its requests was written whole. */
  posted: boolean;
}

class JournalReader {
  private campaign = '';
  private runs = 0;
  private readonly results: SettledResults;
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly path: string) {
    this.results = new SettledResults(path);
  }

  line(raw: string, at?: { start: number; bytes: number }): void {
    if (raw === '') return;
    let line: JournalLine;
    try {
      line = JSON.parse(raw) as JournalLine;
    } catch {
      // Only the last line can be torn (killed mid-write); its batch then counts as in flight.
      return;
    }
    switch (line.t) {
      case 'start':
        return this.start(line);
      case 'batch':
        return this.sent(line.b, line.r);
      case 'posted':
        return this.posted(line.b);
      case 'unsent':
        return this.unsent(line.b);
      case 'result':
        this.answered(line.b, line.r);
        return this.results.setBatch(raw, line, at);
    }
  }

  private start(line: Extract<JournalLine, { t: 'start' }>): void {
    // Another sms-send may record what this one cannot read back: resuming would guess.
    if (line.v !== JOURNAL_VERSION) {
      throw new UsageError(
        `${this.path} was written by another sms-send (journal version ${line.v}, this one reads ${JOURNAL_VERSION}); nothing was sent. Resume with the version that began the campaign.`,
        'journal-version',
      );
    }
    this.campaign = line.campaign;
    this.runs = Math.max(this.runs, line.run);
  }

  private sent(batch: string, ranges: Ranges): void {
    const pending = this.pending.get(batch);
    this.pending.set(batch, {
      ranges,
      times: (pending?.times ?? 0) + 1,
      mark: this.results.mark,
      posted: pending?.posted ?? false,
    });
  }

  private posted(batch: string): void {
    const pending = this.pending.get(batch);
    if (pending) pending.posted = true;
  }

  private unsent(batch: string): void {
    const pending = this.pending.get(batch);
    if (!pending) return;
    if (pending.times > 1) pending.times--;
    else this.pending.delete(batch);
  }

  /** A result for every row of a batch ends its wait; one for some rows leaves the others sent. */
  private answered(batch: string, ranges: Ranges): void {
    const pending = this.pending.get(batch);
    if (pending && pending.ranges.join() === ranges.join()) this.pending.delete(batch);
  }

  state(): JournalState {
    // Rows of batches still waiting, unless a result for the row came after the batch was sent.
    const inFlight = new Map<number, number>();
    const posted = new Set<number>();
    for (const pending of this.pending.values()) {
      for (const row of rowsOf(pending.ranges)) {
        if (this.results.settledSince(row, pending.mark)) continue;
        inFlight.set(row, (inFlight.get(row) ?? 0) + pending.times);
        if (pending.posted) posted.add(row);
      }
    }
    const unposted = new Set<number>();
    for (const row of inFlight.keys()) if (!posted.has(row)) unposted.add(row);
    return {
      campaign: this.campaign,
      runs: this.runs,
      // Sent means something may have reached the gateway: a result, or a batch still in flight.
      // Batches taken back as unsent (refused connections) and nothing else leave nothing to block.
      sent: this.results.size > 0 || inFlight.size > 0,
      results: this.results,
      inFlight,
      unposted,
    };
  }
}
