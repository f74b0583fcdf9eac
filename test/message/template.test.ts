// compileTemplate: {{column}} placeholders, whitespace inside braces, repeats, unknown names.
import { describe, expect, it } from 'vitest';
import { compileTemplate, fillOnce } from '../../src/message/template.js';

const values: Record<string, string> = {
  name: 'Kari',
  code: '4711',
  'first name': 'Ola',
  'CustomData.qos': '1',
  a: 'A',
  b: 'B',
};
const fromValues = (name: string): string | undefined => values[name];

describe('compileTemplate', () => {
  it.each([
    ['Hi {{name}}', ['name'], 'Hi Kari'],
    ['Hi {{ name }}', ['name'], 'Hi Kari'],
    ['Hi {{   name}}', ['name'], 'Hi Kari'],
    ['Hi {{name\t}}', ['name'], 'Hi Kari'],
    ['{{name}}, your code is {{code}}.', ['name', 'code'], 'Kari, your code is 4711.'],
    ['{{a}}{{b}}', ['a', 'b'], 'AB'],
    ['{{a}}-{{b}}-{{a}}-{{ a }}', ['a', 'b'], 'A-B-A-A'],
    ['Hei {{ first name }}!', ['first name'], 'Hei Ola!'],
    ['qos={{CustomData.qos}}', ['CustomData.qos'], 'qos=1'],
    ['Hi {{unknown}}!', ['unknown'], 'Hi !'],
    ['{{unknown}}', ['unknown'], ''],
    ['no placeholders at all', [], 'no placeholders at all'],
    ['', [], ''],
    ['single {name} braces stay', [], 'single {name} braces stay'],
    ['empty {{}} stays', [], 'empty {{}} stays'],
    ['{{{name}}}', ['name'], '{Kari}'],
    ['unclosed {{name', [], 'unclosed {{name'],
  ])('%j → placeholders %j, filled %j', (source, placeholders, filled) => {
    const template = compileTemplate(source);
    expect(template.placeholders).toEqual(placeholders);
    expect(template.fill(fromValues)).toBe(filled);
  });

  it('passes the trimmed name to the lookup once per occurrence, in order', () => {
    const asked: string[] = [];
    const template = compileTemplate('{{ b }} and {{a}} and {{b}}');
    const out = template.fill((name) => {
      asked.push(name);
      return name.toUpperCase();
    });
    expect(out).toBe('B and A and B');
    expect(asked).toEqual(['b', 'a', 'b']);
  });

  it('lists repeated placeholders once, in order of first appearance', () => {
    expect(compileTemplate('{{z}} {{y}} {{z}} {{x}} {{y}}').placeholders).toEqual(['z', 'y', 'x']);
  });

  it('treats an empty string from the lookup as a value, not as missing', () => {
    expect(compileTemplate('[{{a}}]').fill(() => '')).toBe('[]');
  });

  it('can be filled many times with different records', () => {
    const template = compileTemplate('Hi {{name}}');
    expect(template.fill(() => 'Kari')).toBe('Hi Kari');
    expect(template.fill(() => 'Ola')).toBe('Hi Ola');
    expect(template.fill(() => undefined)).toBe('Hi ');
  });
});

// \{{ is the one escape: it sends a literal {{ and starts no placeholder, in a --text or
// --text-file template and in a text column's own content alike.
const ESCAPES: [string, string[], string][] = [
  ['Hi \\{{ to }}', [], 'Hi {{ to }}'],
  ['\\{{7*7}}', [], '{{7*7}}'],
  ['\\{{name}} is {{name}}', ['name'], '{{name}} is Kari'],
  ['{{name}} \\{{ and \\{{', ['name'], 'Kari {{ and {{'],
  ['a \\{ is a brace, \\} stays, \\x stays', [], 'a { is a brace, \\} stays, \\x stays'],
  ['\\{name} as written', [], '{name} as written'],
  ['\\{{{name}}}', [], '{{{name}}}'],
  ['\\\\{{name}}', [], '\\{{name}}'],
];

describe('compileTemplate: \\{{ escapes', () => {
  it.each(ESCAPES)('%j → placeholders %j, filled %j', (source, placeholders, filled) => {
    const template = compileTemplate(source);
    expect(template.placeholders).toEqual(placeholders);
    expect(template.fill(fromValues)).toBe(filled);
  });
});

describe('fillOnce: \\{{ escapes', () => {
  it.each(ESCAPES)('%j → missing none of %j, filled %j', (source, _placeholders, filled) => {
    expect(fillOnce(source, fromValues)).toEqual({ text: filled, missing: [] });
  });

  it('does not fill placeholders that a value brings in', () => {
    expect(fillOnce('{{a}}', () => '{{name}}')).toEqual({ text: '{{name}}', missing: [] });
  });
});

describe('fillOnce scans by hand exactly what the placeholder expression matches', () => {
  // The expression compileTemplate uses, kept here as the reference fillOnce must agree with.
  const REFERENCE = /\\\{\{?|\{\{\s*([^{}]+?)\s*\}\}/g;
  function reference(source: string, lookup: (name: string) => string | undefined) {
    const missing: string[] = [];
    const text = source.replace(REFERENCE, (match: string, name: string | undefined) => {
      if (name === undefined) return match.slice(1);
      const value = lookup(name);
      if (value === undefined) {
        if (!missing.includes(name)) missing.push(name);
        return '';
      }
      return value;
    });
    return { text, missing };
  }

  it('agrees on 20,000 generated texts of braces, backslashes, names and white space', () => {
    const pieces = ['{', '}', '{{', '}}', '\\', 'a', 'name', ' ', '\n', '\u00a0', 'x y', 'é'];
    const lookup = (name: string) => (name.length % 2 ? `<${name}>` : undefined);
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 20_000; n++) {
      let source = '';
      const length = Math.floor(random() * 12);
      for (let i = 0; i < length; i++) source += pieces[Math.floor(random() * pieces.length)];
      expect(fillOnce(source, lookup), JSON.stringify(source)).toEqual(reference(source, lookup));
    }
  });
});
