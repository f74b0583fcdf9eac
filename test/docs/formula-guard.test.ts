// docs/report.md's examples of the formula guard are what the report writes.
import { readFile } from 'node:fs/promises';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { CSV_OPTIONS } from '../../src/report/format.js';

const doc = await readFile(new URL('../../docs/report.md', import.meta.url), 'utf8');
const section = doc.slice(
  doc.indexOf('## Safe to open'),
  doc.indexOf('Every report is valid UTF-8'),
);

const cell = (value: string) => stringify([[value]], CSV_OPTIONS).trimEnd();

describe("docs/report.md's formula guard", () => {
  it.each(['+4741234567', '-5'])('leaves %s as it is, as the docs say', (value) => {
    expect(section).toContain(`\`${value}\``);
    expect(cell(value)).toBe(value);
  });

  it('quotes a phone number with spaces, as the docs say', () => {
    expect(section).toContain('`+47 800 53 415`');
    expect(cell('+47 800 53 415')).toBe("'+47 800 53 415");
  });
});
