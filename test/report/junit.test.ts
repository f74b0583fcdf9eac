// The JUnit report against the Jenkins JUnit XSD, checked by libxml2, and read back exactly.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { openReport } from '../../src/report/writer.js';
import type { RowResult } from '../../src/message/outcome.js';
import { tempDir } from '../helpers/files.js';

const XSD = new URL('../fixtures/junit/jenkins-junit-4.xsd', import.meta.url);

const HOSTILE = [
  'line1\nline2\r\nline3',
  'tab\there\t\tend',
  `quotes " and ' both`,
  '<&> ]]> &amp; &#10;',
  'ctrl \u0000\u0001\u0008\u000b\u000c\u001f\u007f end',
  'lone \ud800 and \udfff, pair \ud83d\ude00',
  'non-chars \ufffe\uffff',
  '  leading and trailing spaces  ',
];

const ROWS: RowResult[] = [
  {
    row: 1,
    to: '4741000001',
    messageId: 'm1',
    outcome: 'accepted',
    attempts: 1,
    statusCode: 0,
    statusDescription: 'Accepted',
    transactionId: 'tx\t1\n',
    segments: 1,
    encoding: 'GSM-7',
    normalized: 2,
  },
  ...HOSTILE.map((text, i): RowResult => ({
    row: 2 + i,
    to: '4741000002',
    messageId: `m${2 + i}`,
    outcome: 'rejected',
    attempts: 1,
    statusCode: 120,
    statusDescription: text,
  })),
  {
    row: 20,
    to: '4741000020',
    messageId: 'm20',
    outcome: 'failed',
    attempts: 4,
    error: 'HTTP 400: line1\nline2\r\nline3',
    segments: 3,
    encoding: 'UCS-2',
  },
  {
    row: 21,
    to: '4741000021',
    messageId: 'm21',
    outcome: 'unknown',
    attempts: 1,
    error: 'no answer after the request was sent (UND_ERR_SOCKET: other side closed)',
  },
  {
    row: 22,
    to: '\ud800<"\t',
    messageId: '',
    outcome: 'invalid',
    attempts: 0,
    error: 'in.csv:23: to: "\ud800<"\t" not a phone number',
  },
  {
    row: 23,
    to: '4741000023',
    messageId: 'm23',
    outcome: 'skipped',
    attempts: 0,
    error: 'skipped: --limit\r\nreached',
    segments: 1,
    encoding: 'GSM-7',
  },
];

/** What a conforming parser must read back: the text, with what XML cannot carry as U+FFFD. */
function readable(text: string): string {
  return text.replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');
}

/** Decodes the references canonical XML (C14N) writes in attribute values and text. */
function decode(text: string): string {
  return text.replace(/&(#x[0-9A-Fa-f]+|#\d+|amp|lt|gt|quot|apos);/g, (_, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[ref]!;
  });
}

interface Case {
  attrs: Record<string, string>;
  children: { name: string; attrs: Record<string, string>; text: string }[];
}

/** Test cases from libxml2's canonical form, where `>` may stand raw inside attribute values. */
function casesOf(c14n: string): Case[] {
  const attrsOf = (tag: string) =>
    Object.fromEntries([...tag.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1]!, decode(m[2]!)]));
  return [...c14n.matchAll(/<testcase((?:\s+[\w-]+="[^"]*")*)>([\s\S]*?)<\/testcase>/g)].map(
    (m) => ({
      attrs: attrsOf(m[1]!),
      children: [...m[2]!.matchAll(/<([\w-]+)((?:\s+[\w-]+="[^"]*")*)>([\s\S]*?)<\/\1>/g)].map(
        (c) => ({
          name: c[1]!,
          attrs: attrsOf(c[2]!),
          text: decode(c[3]!),
        }),
      ),
    }),
  );
}

describe('JUnit report', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let xml: string;
  beforeAll(async () => {
    dir = await tempDir();
    const path = join(dir.path, 'results.xml');
    const writer = await openReport(path, { force: false });
    await writer.write(ROWS.slice(0, 5));
    await writer.write(ROWS.slice(5));
    await writer.close();
    xml = await readFile(path, 'utf8');
  });
  afterAll(() => dir.remove());

  it('validates against the Jenkins JUnit XSD, and libxml2 reads every value back exactly', async () => {
    const result = await validateXML({
      xml: [{ fileName: 'results.xml', contents: xml }],
      schema: [await readFile(XSD, 'utf8')],
      normalization: 'c14n',
    });
    expect(result.errors.map((e) => e.message)).toEqual([]);
    expect(result.valid).toBe(true);

    const cases = casesOf(result.normalized);
    expect(cases).toHaveLength(ROWS.length);
    for (const [i, row] of ROWS.entries()) {
      const { attrs, children } = cases[i]!;
      expect(attrs.name).toBe(
        readable(`row ${row.row} to ${row.to} (${row.messageId || 'no MessageId'})`),
      );
      const reason = [
        row.statusCode !== undefined ? `StatusCode ${row.statusCode}` : undefined,
        row.statusDescription,
        row.error,
      ]
        .filter(Boolean)
        .join(': ');
      // The segments, encoding and normalized columns, as a line of the case's output.
      const text =
        row.segments === undefined
          ? []
          : [
              `segments ${row.segments} (${row.encoding})` +
                (row.normalized ? `, normalized ${row.normalized}` : ''),
            ];
      const out = (lines: string[]) =>
        lines.length ? [{ name: 'system-out', attrs: {}, text: readable(lines.join('\n')) }] : [];
      if (row.outcome === 'accepted') {
        expect(children).toEqual(out([`TransactionId ${row.transactionId}`, ...text]));
      } else if (row.outcome === 'skipped') {
        expect(children).toEqual([
          { name: 'skipped', attrs: {}, text: readable(reason) },
          ...out(text),
        ]);
      } else {
        expect(children).toEqual([
          {
            name: 'failure',
            attrs: { type: row.outcome, message: readable(`${row.outcome}: ${reason}`) },
            text: readable(reason),
          },
          ...out(text),
        ]);
      }
    }
  });

  it('writes whitespace in attribute values as character references (XML 1.0 §3.3.3)', () => {
    expect(xml).toContain('message="rejected: StatusCode 120: line1&#10;line2&#13;&#10;line3"');
    expect(xml).toContain('tab&#9;here&#9;&#9;end');
    // Attribute values hold no raw tab, LF or CR at all.
    for (const [, value] of xml.matchAll(/="([^"]*)"/g)) expect(value).not.toMatch(/[\t\n\r]/);
  });

  it('counts on <testsuite>; <testsuites> carries only what the schema allows', () => {
    expect(xml).toMatch(/<testsuites name="sms-send" tests="13" failures="11" errors="0">/);
    expect(xml).toMatch(
      /<testsuite name="results" tests="13" failures="11" errors="0" skipped="1" /,
    );
  });
});
