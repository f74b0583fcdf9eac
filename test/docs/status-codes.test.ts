// docs/gateway.md lists the simulator's StatusCodes exactly as src/simulator/status-codes.ts defines them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { statusCodeTable } from '../../src/simulator/status-codes.js';

/** The rows of the StatusCode table in docs/gateway.md, as [code, meaning]. */
function documented(): [number, string][] {
  const page = readFileSync(new URL('../../docs/gateway.md', import.meta.url), 'utf8');
  const start = page.indexOf('| StatusCode |');
  expect(start).toBeGreaterThanOrEqual(0);
  const end = page.indexOf('\n\n', start);
  return page
    .slice(start, end === -1 ? undefined : end)
    .split('\n')
    .slice(2)
    .map((line) => {
      const [code, meaning] = line
        .slice(2, -2)
        .split(' | ')
        .map((cell) => cell.trim());
      return [Number(code), meaning!];
    });
}

describe("docs/gateway.md's StatusCode table", () => {
  it('has every code of the simulator, in order, with its meaning', () => {
    expect(documented()).toEqual(statusCodeTable().map((row) => [row.code, row.meaning]));
  });
});
