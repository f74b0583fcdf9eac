// The one column aligner behind every table the renderers print (summary, report counts, campaigns).
import { cut, fitWidths, type Shrinkable } from './fit.js';

export type Align = 'left' | 'right';

export interface TableOptions {
  /** Put before every line (default none). */
  indent?: string;
  /** Between columns (default two spaces). */
  gap?: string;
  /** Per column; default left. */
  align?: readonly Align[];
  /** Per column: a width the column keeps even when its cells are narrower. */
  minWidths?: readonly number[];
  /**
   * Colours a cell after padding, so the escape codes never count towards a width. A left-aligned
   * last column is not padded, so its cells may arrive coloured already.
   */
  paint?: (cell: string, column: number, row: number) => string;
  /** At most this wide (a terminal's columns): `shrink`'s columns narrowed, cells cut (fit.ts). */
  fit?: { width: number; shrink: readonly Shrinkable[] };
}

/** Each column's width: its widest cell, or its minimum. */
export function columnWidths(
  rows: readonly (readonly string[])[],
  minWidths: readonly number[] = [],
): number[] {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths: number[] = [];
  for (let i = 0; i < columns; i++) {
    widths.push(Math.max(minWidths[i] ?? 0, ...rows.map((row) => row[i]?.length ?? 0)));
  }
  return widths;
}

/**
 * Lines of aligned cells. Rows may be shorter than others (a missing note); a left-aligned last
 * column is not padded and trailing spaces are trimmed, so a line never ends in blanks.
 */
export function formatTable(
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string[] {
  const { indent = '', gap = '  ', align = [], minWidths = [], paint, fit } = options;
  const natural = columnWidths(rows, minWidths);
  const columns = natural.length;
  const widths = fit
    ? fitWidths(natural, gap.length, fit.width - indent.length, fit.shrink).widths
    : natural;
  const keep = new Map(fit?.shrink.map((s) => [s.column, s.keep]));
  return rows.map((row, r) => {
    const cells = row.map((whole, i) => {
      const width = widths[i] ?? 0;
      const cell = cut(whole, width, keep.get(i));
      const padded =
        align[i] === 'right' ? cell.padStart(width) : i === columns - 1 ? cell : cell.padEnd(width);
      return paint ? paint(padded, i, r) : padded;
    });
    return `${indent}${cells.join(gap)}`.trimEnd();
  });
}
