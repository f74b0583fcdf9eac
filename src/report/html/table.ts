// A table of counts as the page draws them: a row of column headings, numbers aligned right.
import { html, type Markup } from './escape.js';

/** A column's heading: text, or `{ n: text }` for a column of numbers. */
export type Heading = string | { n: string };

export function countsTable(
  headings: readonly Heading[],
  rows: Markup | readonly Markup[],
  foot?: Markup,
): Markup {
  const cells = headings.map((h) =>
    typeof h === 'string'
      ? html`<th scope="col">${h}</th>`
      : html`<th scope="col" class="n">${h.n}</th>`,
  );
  const tfoot = foot
    ? html`<tfoot>
        ${foot}
      </tfoot>`
    : undefined;
  return html`<table class="counts">
    <thead>
      <tr>
        ${cells}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
    ${tfoot}
  </table>`;
}

/**
 * A table too wide for a phone's screen: it scrolls sideways there, and a line above it says so
 * (shown only at that width), so no column is cut without a sign.
 */
export function wideTable(table: Markup): Markup {
  return html`<p class="scroll-sign muted">Scroll the table sideways for every column →</p>
    <div class="scrolls">${table}</div>`;
}
