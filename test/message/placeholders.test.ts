// What looks like a mistyped placeholder: single braces around a column ({name} is sent as
// written), and a {{placeholder}} with no column but one close to it.
import { describe, expect, it } from 'vitest';
import { checkColumns, planColumns } from '../../src/message/columns.js';
import { singleBraced, singleBraceProblems } from '../../src/message/placeholders.js';
import { editDistance, nearestName } from '../../src/shared/nearest.js';
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

describe('nearestName', () => {
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
    expect(nearestName(name, COLUMNS)).toBe(column);
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

describe('singleBraceProblems: a column in single braces, or close to one, refuses; another warns', () => {
  const refused = (name: string, column: string) => ({
    refuse: true,
    message: `the text has {${name}}, which would go to every recipient as written: did you mean {{${column}}}? (to send the braces as written, write \\{${name}})`,
  });
  const warned = (name: string) => ({
    refuse: false,
    message: `the text has {${name}}, which every recipient gets as written (a column's value is {{column}}; write \\{${name}} to say the braces are meant)`,
  });
  it.each([
    ['Hi {name}, welcome', [refused('name', 'name')]],
    ['Hi {Nmae}', [refused('Nmae', 'name')]],
    ['Hi {frist_nmae}', [refused('frist_nmae', 'first_name')]],
    ['Hi {{name}} from {town}', [warned('town')]],
    ['Code {1234} is yours', [warned('1234')]],
    ['Hi \\{name}, as written', []],
    ['Hi \\{{name}}, as written', []],
  ])('%j', (source, problems) => {
    const found = singleBraceProblems('a.csv', COLUMNS, compileTemplate(source));
    expect(found).toEqual(problems.map((problem) => ({ file: 'a.csv', ...problem })));
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
