// A set of row numbers as one bit each: the rows a spool holds messages for, an eighth of a byte a row.

export class RowBits {
  private constructor(private bits: Uint8Array) {}

  static empty(): RowBits {
    return new RowBits(new Uint8Array(1024));
  }

  /** The set toBase64() wrote. */
  static fromBase64(text: string): RowBits {
    return new RowBits(new Uint8Array(Buffer.from(text, 'base64')));
  }

  add(row: number): void {
    const byte = row >>> 3;
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[byte]! |= 1 << (row & 7);
  }

  has(row: number): boolean {
    return ((this.bits[row >>> 3] ?? 0) & (1 << (row & 7))) !== 0;
  }

  /** How many rows of the set `counts` takes, asked in ascending order. */
  count(counts: (row: number) => boolean): number {
    let count = 0;
    for (let byte = 0; byte < this.bits.length; byte++) {
      const bits = this.bits[byte]!;
      if (bits === 0) continue;
      for (let bit = 0; bit < 8; bit++) {
        if ((bits & (1 << bit)) !== 0 && counts(byte * 8 + bit)) count++;
      }
    }
    return count;
  }

  /** The set as text, without the empty bytes after its last row. */
  toBase64(): string {
    let end = this.bits.length;
    while (end > 0 && this.bits[end - 1] === 0) end--;
    return Buffer.from(this.bits.buffer, this.bits.byteOffset, end).toString('base64');
  }
}
