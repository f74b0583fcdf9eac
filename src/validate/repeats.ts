// Valid records whose recipient and text repeat an earlier one: counted here ('count'), or their
// digests kept for whoever merges the parts of a campaign ('digests': a worker thread).
import { digestMessage } from './digest.js';
import { SpilledRepeats } from './repeat-runs.js';

export class RepeatTally {
  private readonly seen: SpilledRepeats | undefined;
  private digest: Int32Array;
  private digestCount = 0;

  /** `spillDir`: where 'count' puts its buckets of digests once they outgrow their buffers. */
  constructor(
    readonly mode: 'count' | 'digests',
    spillDir?: string,
  ) {
    if (mode === 'count') this.seen = new SpilledRepeats(spillDir!);
    this.digest = new Int32Array(mode === 'digests' ? 4 * 1024 : 4);
  }

  add(to: string, text: string): void {
    if (this.mode === 'count') {
      digestMessage(to, text, this.digest);
      this.seen!.add(this.digest);
      return;
    }
    if ((this.digestCount + 1) * 4 > this.digest.length) {
      const grown = new Int32Array(this.digest.length * 2);
      grown.set(this.digest);
      this.digest = grown;
    }
    digestMessage(to, text, this.digest.subarray(this.digestCount * 4));
    this.digestCount++;
  }

  /** The digests of a part that comes next ('count'), four words each. */
  merge(digests: Int32Array): void {
    if (!this.seen) return;
    for (let at = 0; at < digests.length; at += 4) this.seen.add(digests, at);
  }

  /** The repeats among everything added ('count'); the bucket files are removed. */
  count(): number {
    try {
      return this.seen?.count() ?? 0;
    } finally {
      this.close();
    }
  }

  /** Removes what 'count' spilled to disk; also when the pass ends early. */
  close(): void {
    this.seen?.close();
  }

  /** The digests of the valid records so far, four words each ('digests'). */
  digests(): Int32Array {
    return this.digest.slice(0, this.digestCount * 4);
  }
}
