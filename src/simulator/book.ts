// What the simulator accepted, kept for checking the promise from outside: every accepted message
// written to a file as NDJSON (MessageId, destination, TransactionId, time), and the MessageIds
// counted, distinct and repeated. Both are asked for (`sms-send simulate --ledger FILE`): the
// distinct count holds every MessageId seen, which a long benchmark must not pay for.
import { DiskFile } from '../shared/disk.js';
import type { LedgerEntry } from './ledger.js';

/** Accepted messages, the MessageIds among them, and how many came more than once. */
export interface LedgerStats {
  accepted: number;
  /** Undefined unless the simulator books every MessageId (a ledger file). */
  distinct?: number;
  /** Accepted messages whose MessageId was accepted before: what "sent twice" means. */
  duplicates?: number;
}

export class LedgerBook {
  private readonly seen = new Set<string>();
  private duplicates = 0;

  private constructor(private readonly file: DiskFile) {}

  static async open(path: string): Promise<LedgerBook> {
    return new LedgerBook(await DiskFile.open(path, 'a'));
  }

  /** Books the messages one request had accepted, one line each. */
  add(entries: readonly LedgerEntry[]): void {
    let lines = '';
    for (const entry of entries) {
      if (entry.messageId !== '') {
        if (this.seen.has(entry.messageId)) this.duplicates++;
        else this.seen.add(entry.messageId);
      }
      lines += `${JSON.stringify({
        messageId: entry.messageId,
        destination: entry.destination,
        transactionId: entry.transactionId,
        at: new Date(entry.receivedAt).toISOString(),
      })}\n`;
    }
    if (lines !== '') this.file.write(lines);
  }

  stats(accepted: number): LedgerStats {
    return { accepted, distinct: this.seen.size, duplicates: this.duplicates };
  }

  close(): Promise<void> {
    return this.file.close();
  }
}
