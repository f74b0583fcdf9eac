// Whole numbers as decimal text, for the numbers a run writes once per record (rows, counters).

/**
 * `String(n)` for a whole number, without V8's number-to-string cache: V8 keeps each result of
 * String(n), `${n}` or n.toString() in a table that outlives its young generation, so a million
 * distinct numbers (report rows, spool rows, transaction counters) became a million strings to
 * collect in the old generation, and V8 let that grow to several times what a run keeps alive.
 * toFixed(0) builds the same digits without the cache (docs/benchmark.md#measured-choices-in-the-code). Anything but a safe integer
 * goes to String().
 */
export function decimal(n: number): string {
  return Number.isSafeInteger(n) ? n.toFixed(0) : String(n);
}
