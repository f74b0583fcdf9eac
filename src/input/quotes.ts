// The one reader of CSV quotes in bytes: each quote opens or closes a quoted field (a doubled
// quote closes and reopens), so a byte is inside quotes when an odd number of quotes precede it.
export const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** Walks bytes in order, in as many pieces as they come, knowing whether it is inside quotes. */
export class QuoteScanner {
  quoted = false;

  /** Moves over `bytes[from, to)`: only the quotes there change the state. */
  skip(bytes: Uint8Array, from: number, to: number): void {
    for (let q = bytes.indexOf(QUOTE, from); q !== -1 && q < to; q = bytes.indexOf(QUOTE, q + 1))
      this.quoted = !this.quoted;
  }

  /**
   * The first `byte` outside quotes in `bytes[from, to)`, with the state moved up to it; -1, with
   * the state at `to`, when there is none.
   */
  find(bytes: Uint8Array, byte: number, from: number, to: number): number {
    let quote = bytes.indexOf(QUOTE, from);
    let next = bytes.indexOf(byte, from);
    for (;;) {
      if (quote !== -1 && quote < to && (next === -1 || next >= to || quote < next)) {
        this.quoted = !this.quoted;
        quote = bytes.indexOf(QUOTE, quote + 1);
        continue;
      }
      if (next === -1 || next >= to) return -1;
      if (!this.quoted) return next;
      next = bytes.indexOf(byte, next + 1);
    }
  }

  /** The first line break (LF or CR) outside quotes in `bytes[from, to)`, as find() does. */
  findBreak(bytes: Uint8Array, from: number, to: number): number {
    for (let at = from; at < to; at++) {
      const byte = bytes[at];
      if (byte === QUOTE) this.quoted = !this.quoted;
      else if (!this.quoted && (byte === LF || byte === CR)) return at;
    }
    return -1;
  }
}
