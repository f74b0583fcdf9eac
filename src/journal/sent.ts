// Whom a campaign may have sent to, read from its journals alone (any host can): the recipients of
// rows an answer called accepted or unknown, and of batches recorded and never answered. What
// `--skip-sent-by` leaves out, so that no recipient gets the campaign's message twice.
import { outcomeAt, rowsOf, type Ranges, type ResultColumns } from './columns.js';
import type { JournalLine } from './lines.js';

/** The recipients, and how many sent rows had none recorded (a journal older than the field). */
export interface SentTo {
  /** Distinct MSISDN digits as numbers, sorted: searched by halving, as a suppression list is. */
  numbers: Float64Array;
  unnamed: number;
}

/**
 * Collects one campaign's journal lines, in the order written (its journals set aside by --force
 * first): an outcome once accepted or unknown, or a batch once sent without an answer, marks its
 * rows for good, whatever later runs settled.
 */
export class SentRecipients {
  private to = new Float64Array(1024);
  private sent = new Uint8Array(1024);
  private readonly pending = new Map<string, { ranges: Ranges; times: number }>();

  line(raw: string): void {
    let line: JournalLine;
    try {
      line = JSON.parse(raw) as JournalLine;
    } catch {
      // A torn last line: its batch was not written whole, so it was never posted.
      return;
    }
    if (line.t === 'batch') this.batch(line.b, line.r, line.to);
    else if (line.t === 'unsent') this.unsent(line.b);
    else if (line.t === 'result') this.result(line.b, line);
  }

  /** Every recipient marked, with the count of marked rows whose recipient is not recorded. */
  finish(): SentTo {
    for (const { ranges } of this.pending.values())
      for (const row of rowsOf(ranges)) this.mark(row);
    let count = 0;
    let unnamed = 0;
    for (let row = 0; row < this.sent.length; row++) {
      if (this.sent[row] === 0) continue;
      if (this.to[row] === 0) unnamed++;
      else count++;
    }
    const numbers = new Float64Array(count);
    let at = 0;
    for (let row = 0; row < this.sent.length; row++) {
      if (this.sent[row] !== 0 && this.to[row] !== 0) numbers[at++] = this.to[row]!;
    }
    return { numbers: sortedDistinct(numbers), unnamed };
  }

  private batch(b: string, ranges: Ranges, recipients: string | undefined): void {
    const pending = this.pending.get(b);
    this.pending.set(b, { ranges, times: (pending?.times ?? 0) + 1 });
    if (recipients === undefined) return;
    const numbers = recipients.split(',');
    let i = 0;
    for (const row of rowsOf(ranges)) {
      this.grow(row);
      this.to[row] = Number(numbers[i++]);
    }
  }

  private unsent(b: string): void {
    const pending = this.pending.get(b);
    if (!pending) return;
    if (pending.times > 1) pending.times--;
    else this.pending.delete(b);
  }

  private result(b: string, columns: ResultColumns): void {
    const pending = this.pending.get(b);
    if (pending && pending.ranges.join() === columns.r.join()) this.pending.delete(b);
    let index = 0;
    for (const row of rowsOf(columns.r)) {
      const outcome = outcomeAt(columns, index++);
      if (outcome === 'accepted' || outcome === 'unknown') this.mark(row);
    }
  }

  private mark(row: number): void {
    this.grow(row);
    this.sent[row] = 1;
  }

  private grow(row: number): void {
    if (row < this.sent.length) return;
    let size = this.sent.length;
    while (size <= row) size *= 2;
    const to = new Float64Array(size);
    to.set(this.to);
    this.to = to;
    const sent = new Uint8Array(size);
    sent.set(this.sent);
    this.sent = sent;
  }
}

/** The numbers of several campaigns' SentTo, merged: sorted and distinct. */
export function mergeSent(lists: readonly SentTo[]): SentTo {
  const all = new Float64Array(lists.reduce((sum, list) => sum + list.numbers.length, 0));
  let at = 0;
  for (const list of lists) {
    all.set(list.numbers, at);
    at += list.numbers.length;
  }
  return { numbers: sortedDistinct(all), unnamed: lists.reduce((sum, l) => sum + l.unnamed, 0) };
}

/** The numbers sorted, each once (in place; the distinct part returned). */
function sortedDistinct(numbers: Float64Array): Float64Array {
  numbers.sort();
  let kept = 0;
  for (let i = 0; i < numbers.length; i++) {
    if (kept === 0 || numbers[i] !== numbers[kept - 1]) numbers[kept++] = numbers[i]!;
  }
  return numbers.subarray(0, kept);
}
