// A journal read back, whatever store kept it: what earlier runs settled, and what they sent
// without an answer, kept compactly (see SettledResults) so a resume of millions fits a small box.
import { UsageError } from '../shared/errors.js';
import { OUTCOMES, type Outcome } from '../message/outcome.js';
import { linesAt, openIfExists } from '../shared/files.js';
import { rowsOf, type Ranges, type SettledResult } from './columns.js';
import { JOURNAL_VERSION, resultLine, type JournalLine } from './lines.js';
import { SettledResults } from './results.js';

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
 * Reads a journal file back in one pass, a chunk of lines at a time, keeping only what it settles
 * and the batches still waiting for a result. Undefined when there is no such file.
 */
export async function readJournalFile(path: string): Promise<JournalState | undefined> {
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

/** The rows a journal settled, by outcome. */
export function outcomeCounts(journal: JournalState): Record<Outcome, number> {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const outcome of journal.results.outcomes()) counts[outcome]++;
  return counts;
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

/**
 * Builds a journal's state line by line. `textFile` holds the lines as read (the journal's own
 * file, or this host's reading of it): a result's text is read back from there, at the place each
 * line gives, rather than held.
 */
export class JournalReader {
  private campaign = '';
  private runs = 0;
  private readonly results: SettledResults;
  private readonly pending = new Map<string, Pending>();

  constructor(
    textFile: string,
    /** The journal as a refusal names it. */
    private readonly where = textFile,
  ) {
    this.results = new SettledResults(textFile);
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
        `${this.where} was written by another sms-send (journal version ${line.v}, this one reads ${JOURNAL_VERSION}); nothing was sent. Resume with the version that began the campaign.`,
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
