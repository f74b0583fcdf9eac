// checkNested: depth and size limits on nested input values, for any depth without a stack overflow.
import { describe, expect, it } from 'vitest';
import {
  checkNested,
  MAX_CUSTOM_DATA,
  MAX_NESTED_VALUE,
  MAX_NESTING,
} from '../../src/message/nesting.js';

/** {"a":{"a":…1…}} with `depth` objects. */
function nest(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

const TOO_DEEP = `is nested more than ${MAX_NESTING} levels deep (at most ${MAX_NESTING})`;

describe('checkNested', () => {
  // Values are made lazily: vitest would otherwise walk the deep ones to format the test names.
  it.each<[string, () => unknown, number, string | undefined]>([
    ['a string', () => 'x'.repeat(100_000), MAX_CUSTOM_DATA, undefined],
    ['a number', () => 1, MAX_CUSTOM_DATA, undefined],
    ['null', () => null, MAX_CUSTOM_DATA, undefined],
    ['a flat object', () => ({ qos: 1 }), MAX_CUSTOM_DATA, undefined],
    ['an empty array', () => [], MAX_CUSTOM_DATA, undefined],
    ['32 levels', () => nest(32), MAX_CUSTOM_DATA, undefined],
    ['33 levels', () => nest(33), MAX_CUSTOM_DATA, TOO_DEEP],
    ['5,000 levels', () => nest(5000), MAX_CUSTOM_DATA, TOO_DEEP],
    ['1,000,000 levels', () => nest(1_000_000), MAX_CUSTOM_DATA, TOO_DEEP],
    [
      'arrays in objects, 33 levels',
      () => [nest(31), { b: [nest(31)] }],
      MAX_CUSTOM_DATA,
      TOO_DEEP,
    ],
    ['wide but shallow', () => ({ a: [1, 2, { b: 3 }], c: { d: [] } }), MAX_CUSTOM_DATA, undefined],
    // {"k":"…"} is 8 characters around the string.
    ['4096 characters', () => ({ k: 'x'.repeat(MAX_CUSTOM_DATA - 8) }), MAX_CUSTOM_DATA, undefined],
    [
      '4097 characters',
      () => ({ k: 'x'.repeat(MAX_CUSTOM_DATA - 7) }),
      MAX_CUSTOM_DATA,
      `is 4097 characters as JSON (at most ${MAX_CUSTOM_DATA})`,
    ],
    ['a large other value', () => ['x'.repeat(60_000)], MAX_NESTED_VALUE, undefined],
    [
      'a too large other value',
      () => ['x'.repeat(70_000)],
      MAX_NESTED_VALUE,
      `is 70004 characters as JSON (at most ${MAX_NESTED_VALUE})`,
    ],
  ])('%s → %s', (_label, make, max, reason) => {
    expect(checkNested(make(), max)).toBe(reason);
  });
});
