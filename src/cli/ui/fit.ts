// Fits a table to a terminal's width, as gh does: the columns that can give up width do, in
// order, down to a minimum, their cells cut with an ellipsis.

/** A column that may be narrowed, to no less than `min`; `keep: 'end'` cuts its start (a path). */
export interface Shrinkable {
  column: number;
  min: number;
  keep?: 'start' | 'end';
}

/**
 * The widths that make a line at most `width` wide (`gap` between columns), narrowing `shrink`'s
 * columns in its order; `fits` is false when even their minimums are too wide.
 */
export function fitWidths(
  widths: readonly number[],
  gap: number,
  width: number,
  shrink: readonly Shrinkable[],
): { widths: number[]; fits: boolean } {
  const fitted = [...widths];
  let over = fitted.reduce((sum, w) => sum + w, 0) + gap * Math.max(0, fitted.length - 1) - width;
  for (const { column, min } of shrink) {
    if (over <= 0) break;
    const has = fitted[column] ?? 0;
    const given = Math.max(0, Math.min(over, has - min));
    fitted[column] = has - given;
    over -= given;
  }
  return { widths: fitted, fits: over <= 0 };
}

/** `cell` cut to `width` with an ellipsis where it was cut: at its end, or its start (`keep: 'end'`). */
export function cut(cell: string, width: number, keep: 'start' | 'end' = 'start'): string {
  if (cell.length <= width) return cell;
  if (width <= 1) return '…'.slice(0, width);
  return keep === 'end'
    ? `…${cell.slice(cell.length - width + 1)}`
    : `${cell.slice(0, width - 1)}…`;
}
