// What looks like a mistyped placeholder: single braces around a column ({name} is sent as
// written), and a {{placeholder}} with no column but one close to it.
import { describe, expect, it } from 'vitest';
import { checkColumns, planColumns } from '../../src/message/columns.js';
import {
  editDistance,
  nearestColumn,
  singleBraced,
  singleBraceProblems,
} from '../../src/message/placeholders.js';
import { compileTemplate } from '../../src/message/template.js';

const COLUMNS = ['phone', 'name', 'first_name', 'city'];

describe('editDistance', () => {
  it.each([
    ['name', 'name', 0],
    ['Name', 'name', 0],
    ['nmae', 'name', 1],
    ['nam', 'name', 1],
    ['names', 'name', 1],
    ['nane', 'name', 1],
    ['firstname', 'first_name', 1],
    ['frist_nmae', 'first_name', 2],
    ['town', 'city', 4],
    ['', 'abc', 3],
  ])('%s → %s: %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });

  it('stops past its limit', () => {
    expect(editDistance('abcdefgh', 'zyxwvuts', 2)).toBe(3);
  });
});

describe('nearestColumn', () => {
  it.each([
    ['name', 'name'],
    ['NAME', 'name'],
    ['nmae', 'name'],
    ['firstname', 'first_name'],
    ['frist_nmae', 'first_name'],
    ['cty', 'city'],
    ['town', undefined],
    ['x', undefined],
    ['greeting', undefined],
  ])('%s → %s', (name, column) => {
    expect(nearestColumn(name, COLUMNS)).toBe(column);
  });
});

describe('singleBraced: what a template sends as written between single braces', () => {
  it.each([
    ['Hi {name}, welcome', ['name']],
    ['Hi {{name}}, welcome', []],
    ['Hi \\{{name}} and {city}', ['city']],
    ['Hi { first name }!', ['first name']],
    ['Hi {{name}, half a placeholder', ['name']],
    ['{a} {b} {a}', ['a', 'b']],
    ['JSON {"a": 1} and {} stay', []],
    ['no braces', []],
  ])('%j → %j', (source, names) => {
    expect(singleBraced(source)).toEqual(names);
  });
});

describe('singleBraceProblems: a column in single braces, or close to one', () => {
  it.each([
    [
      'Hi {name}, welcome',
      ['the text has {name}, which is sent as written to every recipient: did you mean {{name}}?'],
    ],
    [
      'Hi {Nmae}',
      ['the text has {Nmae}, which is sent as written to every recipient: did you mean {{name}}?'],
    ],
    ['Hi {{name}} from {town}', []],
    ['Code {1234} is yours', []],
  ])('%j', (source, messages) => {
    const problems = singleBraceProblems('a.csv', COLUMNS, compileTemplate(source));
    expect(problems).toEqual(messages.map((message) => ({ file: 'a.csv', message })));
  });
});

describe('a placeholder with no column names the nearest one', () => {
  it.each([
    ['Hi {{nmae}}', ': did you mean {{name}}?'],
    ['Hi {{frist_name}}', ': did you mean {{first_name}}?'],
    ['Hi {{greeting}}', ''],
  ])('%j', (source, hint) => {
    const template = compileTemplate(source);
    const plan = planColumns(COLUMNS, {}, true);
    const [problem] = checkColumns('a.csv', COLUMNS, plan, { mapping: {}, template });
    const name = template.placeholders[0]!;
    expect(problem!.message).toBe(
      `the text template uses {{${name}}} but there is no column "${name}"${hint}; columns are: ${COLUMNS.join(', ')}`,
    );
  });
});
