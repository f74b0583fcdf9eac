// Valid records whose recipient and text repeat an earlier one: counted here ('count'), or their
// digests kept for whoever merges the parts of a campaign ('digests': a worker thread).
import { DigestSet, digestMessage } from './digest.js';

export class RepeatTally {
  /** Repeats counted so far ('count'). */
  count = 0;
  private readonly seen: DigestSet | undefined;
  private digest: Int32Array;
  private digestCount = 0;

  constructor(readonly mode: 'count' | 'digests') {
    if (mode === 'count') this.seen = new DigestSet();
    this.digest = new Int32Array(mode === 'digests' ? 4 * 1024 : 4);
  }

  add(to: string, text: string): void {
    if (this.mode === 'count') {
      digestMessage(to, text, this.digest);
      if (!this.seen!.add(this.digest)) this.count++;
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
    for (let at = 0; at < digests.length; at += 4) if (!this.seen.add(digests, at)) this.count++;
  }

  /** The digests of the valid records so far, four words each ('digests'). */
  digests(): Int32Array {
    return this.digest.slice(0, this.digestCount * 4);
  }
}
