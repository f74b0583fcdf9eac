// generateMessageId and checkMessageId: deterministic, unique per row, at most 32 printable characters.
import { describe, expect, it } from 'vitest';
import { checkMessageId, generateMessageId } from '../../src/message/message-id.js';

const KEY = '0123456789';

describe('generateMessageId', () => {
  it.each([
    [1, '0123456789-1'],
    [10, '0123456789-a'],
    [35, '0123456789-z'],
    [36, '0123456789-10'],
    [1_000_000, '0123456789-lfls'],
  ])('row %d → %s', (row, id) => {
    expect(generateMessageId(KEY, row)).toBe(id);
  });

  it('is deterministic: the same key and row always give the same id', () => {
    expect(generateMessageId('abcdef0123', 42)).toBe(generateMessageId('abcdef0123', 42));
  });

  it('differs between campaigns for the same row', () => {
    expect(generateMessageId('aaaaaaaaaa', 7)).not.toBe(generateMessageId('bbbbbbbbbb', 7));
  });

  it('is unique for every row of a large campaign', () => {
    const ids = new Set<string>();
    for (let row = 1; row <= 20_000; row++) ids.add(generateMessageId(KEY, row));
    expect(ids.size).toBe(20_000);
  });

  it('stays within 32 printable characters even for the largest row', () => {
    const id = generateMessageId('ffffffffff', Number.MAX_SAFE_INTEGER);
    expect(id).toBe('ffffffffff-2gosa7pa2gv');
    expect(id.length).toBe(22);
    expect(checkMessageId(id)).toBeUndefined();
  });
});

describe('checkMessageId', () => {
  it.each([
    ['a', undefined],
    ['order-4711', undefined],
    ['x'.repeat(32), undefined],
    ['!~#$%&*+/=?@^_`{|}', undefined],
    ['x'.repeat(33), 'is 33 characters (at most 32)'],
    ['x'.repeat(100), 'is 100 characters (at most 32)'],
    ['', 'must be printable ASCII without spaces'],
    ['has space', 'must be printable ASCII without spaces'],
    ['tab\there', 'must be printable ASCII without spaces'],
    ['blåbær', 'must be printable ASCII without spaces'],
    ['emoji😀', 'must be printable ASCII without spaces'],
  ])('%j → %s', (id, problem) => {
    expect(checkMessageId(id)).toBe(problem);
  });
});
