// The record of every accepted message and every HTTP request, so tests can prove nothing was sent twice.

/** One message the simulator accepted (StatusCode 0). */
export interface LedgerEntry {
  readonly transactionId: string;
  /** '' when the request item had no MessageId. */
  readonly messageId: string;
  /** DestinationAddress as digits. */
  readonly destination: string;
  /** The request item exactly as received (after JSON.parse); shared, not copied, to keep the hot path cheap. */
  readonly message: Record<string, unknown>;
  /** Sequence number of the HTTP request that carried it. */
  readonly request: number;
  /** Date.now() when it was accepted. */
  readonly receivedAt: number;
}

/** What became of one HTTP request. */
export type RequestOutcome =
  | 'pending' // body still arriving or answer delayed by latency
  | 'ok' // processed: ProcessResult true (some messages may be rejected)
  | 'auth' // credentials refused: ProcessResult false
  | 'max-batch' // more messages than maxBatchSize: ProcessResult false
  | 'process-result-false' // fault: ProcessResult false, nothing processed
  | '503'
  | '429'
  | '500-after' // fault: processed, then 500
  | 'reset-before'
  | 'reset-after'
  | 'hang'
  | 'bad-request' // malformed JSON or a body that is not a RestSmsRequest
  | 'bad-callback'
  | 'not-found'
  | 'method-not-allowed'
  | 'not-acceptable'
  | 'unsupported-media-type'
  | 'too-large'
  | 'aborted'; // the client went away before the body was complete

/** One HTTP request the simulator received, faulted or not. Never holds credentials. */
export interface RequestRecord {
  /** 1, 2, 3…: the order of arrival, which also seeds the request's fault decisions. */
  readonly seq: number;
  readonly method: string;
  /** The request target as received: path and query. */
  readonly path: string;
  /** Items in Messages (0 when the body was not read or not valid). */
  readonly messageCount: number;
  /** Messages accepted (StatusCode 0) by this request. */
  readonly accepted: number;
  readonly outcome: RequestOutcome;
}

/** The simulator's own, still-updating view of a request record. */
export type MutableRequestRecord = { -readonly [K in keyof RequestRecord]: RequestRecord[K] };

/**
 * A list that keeps at most `limit` of the newest items, in a ring once full: an item is let go
 * as soon as `limit` newer ones have come. (Trimming in batches kept up to 1,024 items more: with
 * a limit of 1, the in-process simulator behind --simulate held a thousand parsed messages at a
 * time, long enough for V8 to move each into its old generation, where a long send's peak memory
 * paid for them.)
 */
export class BoundedLog<T> {
  private items: T[] = [];
  /** Once full, the slot the next item takes: the oldest. */
  private next = 0;
  private total = 0;
  constructor(private readonly limit: number) {}

  push(item: T): void {
    if (this.items.length < this.limit) this.items.push(item);
    else {
      this.items[this.next] = item;
      this.next = this.next + 1 === this.limit ? 0 : this.next + 1;
    }
    this.total += 1;
  }

  /** Every item ever pushed, including those let go. */
  get count(): number {
    return this.total;
  }

  /** The items kept, oldest first. */
  get entries(): readonly T[] {
    if (this.next > 0) {
      this.items = [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
      this.next = 0;
    }
    return this.items;
  }
}

/**
 * Groups ledger entries that share a key (the MessageId by default) and returns only the
 * groups with more than one entry: a non-empty result means something was sent twice.
 * Entries whose key is '' are ignored, since they carry no identity.
 */
export function findDuplicates(
  ledger: readonly LedgerEntry[],
  keyOf: (entry: LedgerEntry) => string = (entry) => entry.messageId,
): LedgerEntry[][] {
  const groups = new Map<string, LedgerEntry[]>();
  for (const entry of ledger) {
    const key = keyOf(entry);
    if (key === '') continue;
    const group = groups.get(key);
    if (group) group.push(entry);
    else groups.set(key, [entry]);
  }
  return [...groups.values()].filter((group) => group.length > 1);
}
