// What the report says of a record's text: its segments and encoding, or nothing when the row
// could not be read and its text is unknown.
import { describe, expect, it } from 'vitest';
import { analyzeText } from '../../src/message/encoding.js';
import { MALFORMED_FIELD } from '../../src/validate/checker.js';
import { entryOf } from '../../src/validate/entries.js';
import type { BuiltRecord } from '../../src/validate/types.js';

const record = { file: 'c.csv', line: 3, row: 2, fields: {} } as BuiltRecord['record'];

describe('entryOf: text columns', () => {
  it('a malformed row has no segments and no encoding: its text is unknown', () => {
    const entry = entryOf({
      record,
      built: {
        ok: false,
        problems: [{ field: MALFORMED_FIELD, reason: 'a quote inside a field must be doubled' }],
        to: '',
        messageId: '',
        text: analyzeText(''),
      },
    });
    expect(entry).toMatchObject({ kind: 'final', result: { outcome: 'invalid' } });
    expect(entry.segments).toBeUndefined();
    expect(entry.encoding).toBeUndefined();
  });

  it('an invalid record whose text was read keeps what the text needs', () => {
    const entry = entryOf({
      record,
      built: {
        ok: false,
        problems: [{ field: 'to', reason: '"12" is too short' }],
        to: '12',
        messageId: 'm-2',
        text: analyzeText('Hei på deg ✓'),
      },
    });
    expect(entry).toMatchObject({ segments: 1, encoding: 'UCS-2' });
  });
});
