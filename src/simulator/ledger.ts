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
 * An append-only list that keeps at most `limit` of the newest items. Trimming is batched so
 * a long run costs amortised O(1) per push; readers always see at most `limit` items.
 */
export class BoundedLog<T> {
  private items: T[] = [];
  private total = 0;
  constructor(private readonly limit: number) {}

  push(item: T): void {
    this.items.push(item);
    this.total += 1;
    if (this.items.length >= this.limit * 2 + 1024) this.trim();
  }

  /** Every item ever pushed, including trimmed ones. */
  get count(): number {
    return this.total;
  }

  get entries(): readonly T[] {
    this.trim();
    return this.items;
  }

  private trim(): void {
    if (this.items.length > this.limit)
      this.items = this.items.slice(this.items.length - this.limit);
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
