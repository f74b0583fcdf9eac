// The one table formatter: widths from plain text, short rows, colour painted after padding.
import { describe, expect, it } from 'vitest';
import { formatTable } from '../../../src/cli/ui/table.js';

describe('formatTable', () => {
  it('pads left-aligned columns, right-aligns counts and leaves the last column unpadded', () => {
    expect(
      formatTable(
        [
          ['accepted', '1,000', 'note'],
          ['failed', '3'],
        ],
        { indent: '  ', align: ['left', 'right'] },
      ),
    ).toEqual(['  accepted  1,000  note', '  failed        3']);
  });

  it('right-aligns a last column and keeps minimum widths', () => {
    expect(
      formatTable([['a', '1']], { gap: ' ', align: ['left', 'right'], minWidths: [3, 4] }),
    ).toEqual(['a      1']);
  });

  it('paints after padding, so colour never shifts a column', () => {
    const lines = formatTable(
      [
        ['ID', 'STATUS', 'END'],
        ['abc', 'ok', ''],
      ],
      { paint: (cell, column) => (column === 1 ? `<${cell}>` : cell) },
    );
    expect(lines).toEqual(['ID   <STATUS>  END', 'abc  <ok    >']);
  });

  it('gives nothing for no rows', () => {
    expect(formatTable([])).toEqual([]);
  });
});
