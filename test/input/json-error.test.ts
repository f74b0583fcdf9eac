// jsonMistake: where in a record's text JSON.parse gave up, as a line count and a reason in words.
import { describe, expect, it } from 'vitest';
import { jsonMistake } from '../../src/input/json-error.js';

describe('jsonMistake', () => {
  it.each([
    ['{"a": 1 "b": 2}', 0, '"," was expected at "\\"b\\": 2}"'],
    ['{"a": 1,\n  "b": tru}', 1, 'not a JSON value at "tru}"'],
    ['{"a": }', 0, 'a value was expected at "}"'],
    ['{"a": 1,}', 0, 'a field name in double quotes was expected at "}"'],
    ['{"a": "x', 0, 'a string is not closed (missing ") at "\\"x"'],
    ['{"a": 1 /* note */}', 0, 'comments are not JSON at "/* note */}"'],
    ['{\n\n"a": 1\n\n', 4, '"}" was expected at the end'],
  ])('%j: %i lines in, %s', (text, lines, reason) => {
    expect(() => JSON.parse(text) as unknown).toThrow();
    expect(jsonMistake(text)).toEqual({ lines, reason });
  });

  it('finds nothing in valid JSON', () => {
    expect(jsonMistake('{"a": [1, 2]}')).toBeUndefined();
  });
});
