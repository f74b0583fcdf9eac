// Each settled row's outcome and the journal line its detail is in, in 2 bytes a row where it can.

/** Rows a page holds: a page is made when one of its rows is settled. */
const PAGE_ROWS = 8192;
/** Lines after a page's first that a 16-bit word can name (13 bits; the other 3 hold the outcome). */
const NARROW_SPAN = 2 ** 13;

/**
 * A word per settled row: `group * 8 + outcome code` (0: not settled). A page's words are 16-bit,
 * the group counted from the page's first (a batch's rows share its line, so a fresh send's page
 * names a hundred lines or so), until a row names a line too far on (a resend in a much later
 * run), when that page alone takes 32-bit words. Pages without a settled row take nothing
 * (docs/architecture.md#what-a-resume-holds).
 */
export class RowWords {
  private pages: (Uint16Array | Uint32Array | undefined)[] = [];
  /** The group a narrow page's words count from. */
  private bases: number[] = [];

  /** The row's word, as set(); 0 for a row not set. */
  get(row: number): number {
    const words = this.pages[Math.floor(row / PAGE_ROWS)];
    if (words === undefined) return 0;
    const word = words[row % PAGE_ROWS]!;
    if (word === 0 || words instanceof Uint32Array) return word;
    return (this.bases[Math.floor(row / PAGE_ROWS)]! + (word >>> 3)) * 8 + (word & 7);
  }

  /** Sets the row's group and outcome code (1–7); groups of one page never go below its first. */
  set(row: number, group: number, code: number): void {
    const page = Math.floor(row / PAGE_ROWS);
    let words = this.pages[page];
    if (words === undefined) {
      words = this.pages[page] = new Uint16Array(PAGE_ROWS);
      this.bases[page] = group;
    }
    const base = this.bases[page]!;
    if (words instanceof Uint16Array && (group < base || group - base >= NARROW_SPAN)) {
      words = this.pages[page] = widened(words, base);
    }
    words[row % PAGE_ROWS] =
      words instanceof Uint32Array ? group * 8 + code : (group - base) * 8 + code;
  }

  /** Every set row's word, in row order. */
  *words(): Generator<number> {
    for (let page = 0; page < this.pages.length; page++) {
      if (this.pages[page] === undefined) continue;
      for (let row = page * PAGE_ROWS; row < (page + 1) * PAGE_ROWS; row++) {
        const word = this.get(row);
        if (word !== 0) yield word;
      }
    }
  }
}

/** A narrow page's words as 32-bit ones, each naming its group whole. */
function widened(words: Uint16Array, base: number): Uint32Array {
  const wide = new Uint32Array(PAGE_ROWS);
  for (let i = 0; i < PAGE_ROWS; i++) {
    const word = words[i]!;
    if (word !== 0) wide[i] = (base + (word >>> 3)) * 8 + (word & 7);
  }
  return wide;
}
