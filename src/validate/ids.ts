// User-given MessageIds seen so far, kept as digests in typed arrays rather than a set of strings.
import { DigestSet, digestMessage } from './digest.js';

/**
 * The MessageIds a campaign's records gave themselves, which must not repeat. Each is kept as its
 * 128-bit digest (see digestMessage: two different ids share one with a chance below 2^-100 even
 * at 10,000,000 ids) in a DigestSet, about 28 bytes an id, where a Set of the strings took 50 to
 * 90. A part validated by a worker thread starts a set over the ids of the parts before it, and
 * records the digests it adds, in order, for the main thread to merge.
 */
export class IdSet {
  private readonly own = new DigestSet();
  private readonly digest = new Int32Array(4);
  private added: Int32Array | undefined;
  private count = 0;

  /** `earlier`: ids this set also holds, read-only; `record`: keep the digests this set adds. */
  constructor(
    private readonly earlier?: IdSet,
    record = false,
  ) {
    if (record) this.added = new Int32Array(4 * 64);
  }

  /** Adds an id; false when it was already there. */
  add(id: string): boolean {
    digestMessage('', id, this.digest);
    if (this.earlier?.holds(this.digest, 0)) return false;
    if (!this.own.add(this.digest)) return false;
    if (this.added) {
      if ((this.count + 1) * 4 > this.added.length) {
        const grown = new Int32Array(this.added.length * 2);
        grown.set(this.added);
        this.added = grown;
      }
      this.added.set(this.digest, this.count * 4);
      this.count++;
    }
    return true;
  }

  /** Whether any of these digests (four words each) is in the set. */
  holdsAny(digests: Int32Array): boolean {
    for (let at = 0; at < digests.length; at += 4) if (this.holds(digests, at)) return true;
    return false;
  }

  /** Adds digests (four words each) that another set recorded. */
  addDigests(digests: Int32Array): void {
    for (let at = 0; at < digests.length; at += 4) this.own.add(digests, at);
  }

  /** The digests this set added, in order (with `record`). */
  digests(): Int32Array {
    return this.added?.slice(0, this.count * 4) ?? new Int32Array(0);
  }

  private holds(digests: Int32Array, at: number): boolean {
    return this.own.has(digests, at) || (this.earlier?.holds(digests, at) ?? false);
  }
}
