// docs/json.md lists every error code the program gives, and no other: the table against the one
// list the errors are typed with (src/shared/errors.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/shared/errors.js';

const page = readFileSync(new URL('../../docs/json.md', import.meta.url), 'utf8');

/** The codes in the first column of the table of error codes. */
function documented(): string[] {
  const start = page.search(/^\| code +\| what it means/m);
  const table = page.slice(start, page.indexOf('## `send`'));
  return table
    .split('\n')
    .slice(2)
    .filter((line) => line.startsWith('|'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!));
}

describe('the error codes of docs/json.md', () => {
  it('are every code the program gives, each once', () => {
    expect(documented().sort()).toEqual([...ERROR_CODES].sort());
  });
});
