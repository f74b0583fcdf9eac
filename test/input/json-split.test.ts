// JsonArraySplitter: the same elements and lines whatever the chunk size, and errors with their lines.
import { describe, expect, it } from 'vitest';
import { JsonArraySplitter, JsonShapeError, type JsonElement } from '../../src/input/json-split.js';

interface Split {
  elements: JsonElement[];
  error?: { message: string; line: number };
}

/** Feeds `doc` in chunks of `size` characters, then ends it; collects elements and the first error. */
function split(doc: string, size: number): Split {
  const splitter = new JsonArraySplitter();
  const elements: JsonElement[] = [];
  try {
    for (let i = 0; i < doc.length; i += size)
      elements.push(...splitter.push(doc.slice(i, i + size)));
    splitter.end();
  } catch (error) {
    if (!(error instanceof JsonShapeError)) throw error;
    return { elements, error: { message: error.message, line: error.line } };
  }
  return { elements };
}

/** Every chunk size from 1 up to the whole document gives the same elements, or the same error. */
function splitEverySize(doc: string): Split {
  const whole = split(doc, Math.max(doc.length, 1));
  for (let size = 1; size < doc.length; size++) {
    const part = split(doc, size);
    // A push that throws drops the elements of its own chunk, so on error only the error must agree.
    if (whole.error) expect(part.error, `chunk size ${size}`).toEqual(whole.error);
    else expect(part, `chunk size ${size}`).toEqual(whole);
  }
  return whole;
}

const ARRAY_DOC = [
  '[',
  '  {"to": "4741234567", "text": "brackets [ ] and braces { } inside"},',
  '  {"to": "4741234568",',
  '   "text": "a \\"quoted\\" word, a backslash \\\\ and an escaped quote at the end \\""},',
  '  {',
  '    "to": "4741234569",',
  '    "text": "ends with a backslash \\\\",',
  '    "nested": {"a": [1, {"b": "}]"}], "c": {}}',
  '  },',
  '  {"to":"4741234570","text":"unicode æøå 😀 \\u00e6"}',
  ']',
  '',
].join('\n');

describe('JsonArraySplitter: top-level array', () => {
  it('splits the elements with the line each starts on, for every chunk size', () => {
    const { elements, error } = splitEverySize(ARRAY_DOC);
    expect(error).toBeUndefined();
    expect(elements.map((e) => e.line)).toEqual([2, 3, 5, 10]);
    expect(elements.map((e) => JSON.parse(e.text) as unknown)).toEqual([
      { to: '4741234567', text: 'brackets [ ] and braces { } inside' },
      {
        to: '4741234568',
        text: 'a "quoted" word, a backslash \\ and an escaped quote at the end "',
      },
      {
        to: '4741234569',
        text: 'ends with a backslash \\',
        nested: { a: [1, { b: '}]' }], c: {} },
      },
      { to: '4741234570', text: 'unicode æøå 😀 æ' },
    ]);
  });

  it('returns each element’s exact source text', () => {
    const { elements } = splitEverySize('[{"a":1} , {"b" : [2]}]');
    expect(elements).toEqual([
      { text: '{"a":1}', line: 1 },
      { text: '{"b" : [2]}', line: 1 },
    ]);
  });

  it('agrees with JSON.parse on the whole document', () => {
    const { elements } = splitEverySize(ARRAY_DOC);
    expect(elements.map((e) => JSON.parse(e.text) as unknown)).toEqual(JSON.parse(ARRAY_DOC));
  });

  it.each([
    ['[]', 0],
    [' \n [ \n ] \n ', 0],
    ['[{}]', 1],
    ['[{},{},{}]', 3],
    ['\r\n[\r\n{"a":1},\r\n{"a":2}\r\n]\r\n', 2],
    ['\t[\t{"a":"\\\\"}\t]', 1],
  ])('%j has %d elements', (doc, count) => {
    const { elements, error } = splitEverySize(doc);
    expect(error).toBeUndefined();
    expect(elements).toHaveLength(count);
  });

  it('counts lines across CRLF line endings', () => {
    const { elements } = splitEverySize('[\r\n{"a":1},\r\n\r\n{"a":2}\r\n]');
    expect(elements.map((e) => e.line)).toEqual([2, 4]);
  });

  it('returns elements as soon as they are complete', () => {
    const splitter = new JsonArraySplitter();
    expect(splitter.push('[{"a":1},{"b"')).toEqual([{ text: '{"a":1}', line: 1 }]);
    expect(splitter.push(':2}')).toEqual([{ text: '{"b":2}', line: 1 }]);
    expect(splitter.push(']')).toEqual([]);
    expect(() => splitter.end()).not.toThrow();
  });
});

describe('JsonArraySplitter: {"Messages": [...]} object', () => {
  const OBJECT_DOC = [
    '{',
    '  "Username": "ignored {[\\"]}",',
    '  "meta": {"Messages": [{"not": "a record"}], "list": [[1], {"x": "]"}]},',
    '  "note": "Messages",',
    '  "Messages": [',
    '    {"to": "4741234567", "text": "first"},',
    '    {"to": "4741234568",',
    '     "text": "second [with] {braces}"}',
    '  ],',
    '  "after": [{"also": "ignored"}],',
    '  "tail": "}]"',
    '}',
  ].join('\n');

  it('takes only the elements of the top-level Messages array, for every chunk size', () => {
    const { elements, error } = splitEverySize(OBJECT_DOC);
    expect(error).toBeUndefined();
    expect(elements.map((e) => e.line)).toEqual([6, 7]);
    expect(elements.map((e) => JSON.parse(e.text) as unknown)).toEqual([
      { to: '4741234567', text: 'first' },
      { to: '4741234568', text: 'second [with] {braces}' },
    ]);
  });

  it('accepts Messages as the only key, and an empty Messages array', () => {
    expect(splitEverySize('{"Messages":[{"a":1}]}')).toEqual({
      elements: [{ text: '{"a":1}', line: 1 }],
    });
    expect(splitEverySize('{"Messages": []}')).toEqual({ elements: [] });
  });

  it('accepts the key in another case', () => {
    expect(splitEverySize('{"messages":[{"a":1}]}').elements).toEqual([
      { text: '{"a":1}', line: 1 },
    ]);
  });

  it('finds Messages after other keys with nested arrays', () => {
    const doc = '{"a": [1, 2, [3]], "b": {"c": [{"d": 4}]}, "Messages": [{"e": 5}]}';
    expect(splitEverySize(doc)).toEqual({ elements: [{ text: '{"e": 5}', line: 1 }] });
  });
});

describe('JsonArraySplitter: errors with lines', () => {
  it.each([
    ['an empty document', '', 'is empty: expected a JSON array of records', 1],
    ['only whitespace', '\n\n  \n', 'is empty: expected a JSON array of records', 4],
    [
      'a scalar',
      '\n42',
      'expected a JSON array of records, or an object with a "Messages" array',
      2,
    ],
    [
      'a string',
      '"hello"',
      'expected a JSON array of records, or an object with a "Messages" array',
      1,
    ],
    ['a truncated array', '[\n{"a":1},\n{"b":', 'the JSON document ends before it is complete', 3],
    ['an unclosed array', '[\n{"a":1}\n', 'the JSON document ends before it is complete', 3],
    [
      'a document cut inside a string',
      '[{"a":"b',
      'the JSON document ends before it is complete',
      1,
    ],
    ['a number element', '[\n{"a":1},\n2\n]', 'each record must be a JSON object', 3],
    ['a string element', '["4741234567"]', 'each record must be a JSON object', 1],
    ['an array element', '[\n\n[{"a":1}]]', 'each record must be a JSON object', 3],
    ['a null element', '[{"a":1}, null]', 'each record must be a JSON object', 1],
    [
      'a non-object in Messages',
      '{"Messages": [\n{"a":1},\n"x"]}',
      'each record must be a JSON object',
      3,
    ],
    ['trailing garbage', '[{"a":1}]\n\nx', 'unexpected text after the end of the JSON document', 3],
    [
      'a second document',
      '[{"a":1}]\n[{"b":2}]',
      'unexpected text after the end of the JSON document',
      2,
    ],
    [
      'an object without Messages',
      '{\n"Records": [{"a":1}]\n}',
      'the JSON object has no "Messages" array',
      1,
    ],
    ['an empty object', '{}', 'the JSON object has no "Messages" array', 1],
    [
      'Messages that is not an array',
      '{"Messages": {"a": 1}}',
      'the JSON object has no "Messages" array',
      1,
    ],
    [
      'Messages only nested deeper',
      '{"x": {"Messages": [{"a":1}]}}',
      'the JSON object has no "Messages" array',
      1,
    ],
  ])('%s', (_label, doc, message, line) => {
    const result = splitEverySize(doc);
    expect(result.error).toEqual({ message, line });
  });

  it('returns the elements of earlier chunks, then throws at the bad one', () => {
    const splitter = new JsonArraySplitter();
    expect(splitter.push('[\n{"a":1},\n')).toEqual([{ text: '{"a":1}', line: 2 }]);
    expect(splitter.push('{"b":2},\n')).toEqual([{ text: '{"b":2}', line: 3 }]);
    let caught: unknown;
    try {
      splitter.push('true\n]');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(JsonShapeError);
    expect((caught as JsonShapeError).message).toBe('each record must be a JSON object');
    expect((caught as JsonShapeError).line).toBe(4);
  });

  it('throws JsonShapeError instances', () => {
    const splitter = new JsonArraySplitter();
    expect(() => splitter.end()).toThrow(JsonShapeError);
  });
});

describe('JsonArraySplitter: separators between records', () => {
  it.each([
    ['[{"a":1} {"b":2}]', 'missing comma between records'],
    ['[{"a":1},,{"b":2}]', 'unexpected comma'],
    ['[,{"a":1}]', 'unexpected comma'],
    ['[{"a":1},]', 'comma before "]"'],
    ['{"Messages":[{"a":1} {"b":2}]}', 'missing comma between records'],
  ])('%j is refused: %s', (doc, message) => {
    const splitter = new JsonArraySplitter();
    expect(() => {
      splitter.push(doc);
      splitter.end();
    }).toThrow(message);
  });
});
