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
