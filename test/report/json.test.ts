// JSON and NDJSON reports stay valid UTF-8 JSON whatever the input held: lone surrogates become U+FFFD.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReport } from '../../src/report/writer.js';
import type { RowResult } from '../../src/message/outcome.js';
import { tempDir } from '../helpers/files.js';

const ROWS: RowResult[] = [
  {
    row: 1,
    to: '\ud800',
    messageId: 'm1',
    outcome: 'invalid',
    attempts: 0,
    error: 'in.json:1: to: "\ud800" not a phone number',
  },
  {
    row: 2,
    to: '4741000002',
    messageId: 'm2',
    outcome: 'rejected',
    attempts: 1,
    statusCode: 120,
    statusDescription: 'lone low \udc00, pair \ud83d\ude00, backslash-u text \\ud800',
    extraInfo: { 'key\udbff': 'value\udfff' },
  },
];

/** The report as a strict reader sees it: invalid UTF-8 throws, as it does in jq. */
async function readStrict(path: string): Promise<string> {
  return new TextDecoder('utf-8', { fatal: true }).decode(await readFile(path));
}

/** Every string in a parsed value, keys included: a lone surrogate anywhere fails the test. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  }
  return [];
}

const EXPECTED = [
  {
    row: 1,
    to: '\ufffd',
    messageId: 'm1',
    outcome: 'invalid',
    attempts: 0,
    error: 'in.json:1: to: "\ufffd" not a phone number',
  },
  {
    row: 2,
    to: '4741000002',
    messageId: 'm2',
    outcome: 'rejected',
    attempts: 1,
    statusCode: 120,
    statusDescription: 'lone low \ufffd, pair \ud83d\ude00, backslash-u text \\ud800',
    extraInfo: { 'key\ufffd': 'value\ufffd' },
  },
];

describe('JSON and NDJSON reports with lone surrogates in their values', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    dir = await tempDir();
  });
  afterAll(() => dir.remove());

  async function written(name: string): Promise<string> {
    const path = join(dir.path, name);
    const writer = await openReport(path, { force: false });
    await writer.write(ROWS);
    await writer.close();
    return readStrict(path);
  }

  it('.json parses back with U+FFFD where the lone surrogates were', async () => {
    const text = await written('r.json');
    // JSON.parse accepts `\ud800`; jq and I-JSON readers do not, so it must not be written at all.
    expect(text).not.toMatch(/(^|[^\\])(\\\\)*\\u[dD][89a-fA-F]/);
    const parsed = JSON.parse(text) as unknown;
    expect(parsed).toEqual(EXPECTED);
    for (const s of strings(parsed)) expect(s).not.toMatch(/\p{Cs}/u);
  });

  it('.ndjson parses back line by line with U+FFFD where the lone surrogates were', async () => {
    const text = await written('r.ndjson');
    expect(text).not.toMatch(/(^|[^\\])(\\\\)*\\u[dD][89a-fA-F]/);
    const parsed = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(parsed).toEqual(EXPECTED);
    for (const s of strings(parsed)) expect(s).not.toMatch(/\p{Cs}/u);
  });
});
