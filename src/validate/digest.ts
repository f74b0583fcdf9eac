// 128-bit digests of recipient + text, and a set of them that costs no garbage: --dedupe and repeats.

/**
 * MurmurHash3's x86 128-bit rounds over `to`, a U+0000, then `text`, taken as UTF-16LE code units:
 * a digest at a fraction of a cryptographic hash's CPU and with no object per record. It is
 * not cryptographic, which is not needed: the input is the user's own file, not an adversary's.
 * Treated as random, n distinct messages collide with probability below n² / 2^129 (about 1.5e-23
 * for 100 million), so --dedupe, which skips a record on a match, never skips one by accident.
 * The digest is written to `out` (four 32-bit words) rather than returned, so nothing is allocated.
 */
export function digestMessage(to: string, text: string, out: Int32Array): void {
  let h1 = 0x9747b28c | 0;
  let h2 = h1;
  let h3 = h1;
  let h4 = h1;
  const units = to.length + 1 + text.length;
  const whole = units - (units % 8);
  // Rounds of four 32-bit words, each two code units.
  for (let i = 0; i < whole; i += 8) {
    let k1 = unitAt(to, text, i) | (unitAt(to, text, i + 1) << 16);
    let k2 = unitAt(to, text, i + 2) | (unitAt(to, text, i + 3) << 16);
    let k3 = unitAt(to, text, i + 4) | (unitAt(to, text, i + 5) << 16);
    let k4 = unitAt(to, text, i + 6) | (unitAt(to, text, i + 7) << 16);
    k1 = Math.imul(rotl(Math.imul(k1, C1), 15), C2);
    h1 ^= k1;
    h1 = rotl(h1, 19);
    h1 = (h1 + h2) | 0;
    h1 = (Math.imul(h1, 5) + 0x561ccd1b) | 0;
    k2 = Math.imul(rotl(Math.imul(k2, C2), 16), C3);
    h2 ^= k2;
    h2 = rotl(h2, 17);
    h2 = (h2 + h3) | 0;
    h2 = (Math.imul(h2, 5) + 0x0bcaa747) | 0;
    k3 = Math.imul(rotl(Math.imul(k3, C3), 17), C4);
    h3 ^= k3;
    h3 = rotl(h3, 15);
    h3 = (h3 + h4) | 0;
    h3 = (Math.imul(h3, 5) + 0x96cd1c35) | 0;
    k4 = Math.imul(rotl(Math.imul(k4, C4), 18), C1);
    h4 ^= k4;
    h4 = rotl(h4, 13);
    h4 = (h4 + h1) | 0;
    h4 = (Math.imul(h4, 5) + 0x32ac3b17) | 0;
  }
  if (whole < units) {
    // The tail: missing units are zero, and the words are mixed in without the h-rounds.
    let k1 = 0;
    let k2 = 0;
    let k3 = 0;
    let k4 = 0;
    for (let i = whole; i < units; i++) {
      const unit = i - whole;
      const bits = unitAt(to, text, i) << ((unit & 1) * 16);
      if (unit < 2) k1 |= bits;
      else if (unit < 4) k2 |= bits;
      else if (unit < 6) k3 |= bits;
      else k4 |= bits;
    }
    h4 ^= Math.imul(rotl(Math.imul(k4, C4), 18), C1);
    h3 ^= Math.imul(rotl(Math.imul(k3, C3), 17), C4);
    h2 ^= Math.imul(rotl(Math.imul(k2, C2), 16), C3);
    h1 ^= Math.imul(rotl(Math.imul(k1, C1), 15), C2);
  }
  const bytes = units * 2;
  h1 ^= bytes;
  h2 ^= bytes;
  h3 ^= bytes;
  h4 ^= bytes;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  out[0] = h1;
  out[1] = h2;
  out[2] = h3;
  out[3] = h4;
}

const C1 = 0x239b961b;
const C2 = 0xab0e9789 | 0;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93 | 0;

/** The i-th code unit of `to`, U+0000, `text`. */
function unitAt(to: string, text: string, i: number): number {
  const n = to.length;
  return i < n ? to.charCodeAt(i) : i === n ? 0 : text.charCodeAt(i - n - 1);
}

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/**
 * A set of 128-bit digests in typed arrays (open addressing, linear probing): nothing for the
 * garbage collector to trace however many there are. The digests are spread over 256 shards by
 * their first byte, each a table of its own that grows by half when it is 70% full. The shards
 * start at sizes spread over one growth step, so they grow at different counts and memory follows
 * the count, rather than one table doubling and holding its old and new tables at once while it
 * moves them (docs/benchmark.md#measured-choices-in-the-code).
 */
export class DigestSet {
  private readonly shards: Int32Array<ArrayBuffer>[] = [];
  /** Each shard's slots, digests held, and the count at which it grows. */
  private readonly capacities = new Int32Array(SHARDS);
  private readonly sizes = new Int32Array(SHARDS);
  private readonly limits = new Int32Array(SHARDS);
  /** The all-zero digest marks an empty slot, so it is kept aside. */
  private zero = false;

  constructor() {
    // 64 to 96 slots a shard: about 20,000 slots (320 KiB) to start, as a campaign worth a dry
    // run has thousands of records.
    for (let shard = 0; shard < SHARDS; shard++) {
      this.resize(shard, Math.ceil(64 * GROWTH ** (shard / SHARDS)));
    }
  }

  /** Adds the digest at `at` in `digests`; false when it was already there. */
  add(digests: Int32Array, at = 0): boolean {
    const a = digests[at]!;
    const b = digests[at + 1]!;
    const c = digests[at + 2]!;
    const d = digests[at + 3]!;
    if ((a | b | c | d) === 0) {
      if (this.zero) return false;
      this.zero = true;
      return true;
    }
    const shard = a >>> 24;
    if (this.sizes[shard]! >= this.limits[shard]!) {
      this.resize(shard, Math.ceil(this.capacities[shard]! * GROWTH));
    }
    const slots = this.shards[shard]!;
    const capacity = this.capacities[shard]!;
    for (let i = home(b, capacity); ; i = i + 1 === capacity ? 0 : i + 1) {
      const o = i * 4;
      const s0 = slots[o]!;
      const s1 = slots[o + 1]!;
      const s2 = slots[o + 2]!;
      const s3 = slots[o + 3]!;
      if ((s0 | s1 | s2 | s3) === 0) {
        slots[o] = a;
        slots[o + 1] = b;
        slots[o + 2] = c;
        slots[o + 3] = d;
        this.sizes[shard]!++;
        return true;
      }
      if (s0 === a && s1 === b && s2 === c && s3 === d) return false;
    }
  }

  /** Whether the digest at `at` in `digests` is in the set. */
  has(digests: Int32Array, at = 0): boolean {
    const a = digests[at]!;
    const b = digests[at + 1]!;
    const c = digests[at + 2]!;
    const d = digests[at + 3]!;
    if ((a | b | c | d) === 0) return this.zero;
    const shard = a >>> 24;
    const slots = this.shards[shard]!;
    const capacity = this.capacities[shard]!;
    for (let i = home(b, capacity); ; i = i + 1 === capacity ? 0 : i + 1) {
      const o = i * 4;
      const s0 = slots[o]!;
      const s1 = slots[o + 1]!;
      const s2 = slots[o + 2]!;
      const s3 = slots[o + 3]!;
      if ((s0 | s1 | s2 | s3) === 0) return false;
      if (s0 === a && s1 === b && s2 === c && s3 === d) return true;
    }
  }

  /** Gives a shard a table of `capacity` slots, moving its digests (each known to be new there). */
  private resize(shard: number, capacity: number): void {
    const old = this.shards[shard];
    const slots = new Int32Array(capacity * 4);
    for (let from = 0; old !== undefined && from < old.length; from += 4) {
      const a = old[from]!;
      const b = old[from + 1]!;
      const c = old[from + 2]!;
      const d = old[from + 3]!;
      if ((a | b | c | d) === 0) continue;
      let o = home(b, capacity) * 4;
      while ((slots[o]! | slots[o + 1]! | slots[o + 2]! | slots[o + 3]!) !== 0) {
        o = o + 4 === slots.length ? 0 : o + 4;
      }
      slots[o] = a;
      slots[o + 1] = b;
      slots[o + 2] = c;
      slots[o + 3] = d;
    }
    this.shards[shard] = slots;
    this.capacities[shard] = capacity;
    this.limits[shard] = Math.floor(capacity * MAX_LOAD);
    // The old table has lived long enough to be in V8's old generation, where its memory would
    // wait for a full collection; handed over to a new buffer that nothing holds, it is freed at
    // the next young one, instead of waiting for a full collection.
    if (old) structuredClone(old.buffer, { transfer: [old.buffer] });
  }
}

const SHARDS = 256;
const GROWTH = 1.5;
const MAX_LOAD = 0.7;

/** A digest word mapped onto 0 … capacity - 1: a multiply, not a modulo (exact below 2^53). */
function home(word: number, capacity: number): number {
  return (((word >>> 0) * capacity) / 4_294_967_296) | 0;
}
