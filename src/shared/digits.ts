// Whole numbers as decimal text, for the numbers a run writes once per record (rows, counters).

const WORD = 10_000;
/** 0 to 9,999 as text, and the same padded to four digits: made at the first number. */
let plain: string[] | undefined;
let padded: string[] | undefined;

/**
 * `String(n)`, without V8's number-to-string cache: V8 keeps each result of String(n), `${n}` or
 * n.toString() in a table that outlives its young generation, so a million distinct numbers
 * (report rows, spool rows, transaction counters) became a million strings to collect in the old
 * generation, and V8 let that grow to several times what a run keeps alive. A whole number under
 * 100,000,000 is put together from two four-digit texts (short enough to be copied, not linked);
 * any other safe integer goes to toFixed(0), which builds the digits without the cache; anything
 * else to String() (docs/benchmark.md#measured-choices-in-the-code).
 */
export function decimal(n: number): string {
  if (n >= 0 && n < WORD * WORD && (n | 0) === n) {
    if (plain === undefined) fillTables();
    if (n < WORD) return plain![n]!;
    const high = (n / WORD) | 0;
    return plain![high]! + padded![n - high * WORD]!;
  }
  return Number.isSafeInteger(n) ? n.toFixed(0) : String(n);
}

function fillTables(): void {
  plain = new Array<string>(WORD);
  padded = new Array<string>(WORD);
  for (let i = 0; i < WORD; i++) {
    plain[i] = i.toFixed(0);
    padded[i] = plain[i]!.padStart(4, '0');
  }
}
