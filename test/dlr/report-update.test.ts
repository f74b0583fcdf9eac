// Reading a report back and rewriting it with extra columns: atomic, order-keeping, escapes kept.
import { appendFileSync } from 'node:fs';
import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/shared/errors.js';
import { unescapeFormula } from '../../src/report/format.js';
import { readReport, summarizeReport } from '../../src/report/read.js';
import { fileIdentity, updateReport, type RowUpdater } from '../../src/report/update.js';
import { openReport } from '../../src/report/writer.js';
import type { RowResult } from '../../src/message/outcome.js';
import { reportColumns } from '../../src/report/row.js';
import { parseCsv, tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(() => dir.remove());

function row(n: number, overrides: Partial<RowResult> = {}): RowResult {
  return {
    row: n,
    to: `474100000${n}`,
    messageId: `m${n}`,
    outcome: 'accepted',
    statusCode: 0,
    statusDescription: 'Accepted',
    transactionId: `t${n}`,
    extraInfo: { server: 'sim1' },
    attempts: 1,
    ...overrides,
  };
}

/** Writes a report with the real writer, so the layout is the one sms-send produces. */
async function writeReport(name: string, rows: RowResult[]): Promise<string> {
  const path = join(dir.path, name);
  const writer = await openReport(path, { force: false });
  await writer.write(rows);
  await writer.close();
  return path;
}

const COLUMNS = ['deliveryStatus', 'deliveredAt'] as const;

/** Sets deliveryStatus from a table keyed by messageId. */
function statuses(table: Record<string, string>): RowUpdater {
  return (values) => {
    const status = table[String(values['messageId'])];
    return status === undefined ? undefined : { deliveryStatus: status, deliveredAt: 'T' };
  };
}

async function leftovers(): Promise<string[]> {
  return (await readdir(dir.path)).filter((name) => name.endsWith('.tmp'));
}

describe('updateReport (csv)', () => {
  it('adds the columns and sets them, keeping every row in its order', async () => {
    const path = await writeReport(
      'r.csv',
      [1, 2, 3, 4].map((n) => row(n)),
    );
    const result = await updateReport(path, COLUMNS, statuses({ m2: 'DELIVRD', m4: 'EXPIRED' }));
    expect(result).toEqual({
      rows: 4,
      changed: 2,
      written: true,
      identity: expect.stringMatching(/^\d+:\d+:\d+:[\d.]+$/) as string,
    });
    const rows = parseCsv(await readFile(path, 'utf8'));
    expect(rows.map((r) => [r.row, r.messageId, r.deliveryStatus, r.deliveredAt])).toEqual([
      ['1', 'm1', '', ''],
      ['2', 'm2', 'DELIVRD', 'T'],
      ['3', 'm3', '', ''],
      ['4', 'm4', 'EXPIRED', 'T'],
    ]);
    expect(rows[0]).toMatchObject({ extraInfo: 'server=sim1', transactionId: 't1' });
    expect(result.identity).toBe(fileIdentity(await stat(path)));
    expect(await leftovers()).toEqual([]);
  });

  it('keeps the segments, encoding and normalized columns of a --gsm-normalize run', async () => {
    const path = join(dir.path, 'n.csv');
    const writer = await openReport(path, {
      force: false,
      columns: reportColumns({ normalized: true }),
    });
    await writer.write([
      row(1, { segments: 1, encoding: 'GSM-7', normalized: 2 }),
      row(2, { segments: 2, encoding: 'UCS-2' }),
    ]);
    await writer.close();
    await updateReport(path, COLUMNS, statuses({ m1: 'DELIVRD', m2: 'DELIVRD' }));
    const rows = parseCsv(await readFile(path, 'utf8'));
    expect(rows.map((r) => [r.segments, r.encoding, r.normalized, r.deliveryStatus])).toEqual([
      ['1', 'GSM-7', '2', 'DELIVRD'],
      ['2', 'UCS-2', '', 'DELIVRD'],
    ]);
    expect((await summarizeReport(path)).byOutcome.accepted).toBe(2);
  });

  it('matches escaped MessageIds and escapes the values it writes', async () => {
    const path = await writeReport('r.csv', [row(1, { messageId: '=id' })]);
    expect((await readFile(path, 'utf8')).includes(",'=id,")).toBe(true);
    await updateReport(path, COLUMNS, statuses({ '=id': '@SUM(A1)' }));
    const [first] = parseCsv(await readFile(path, 'utf8'));
    expect(first).toMatchObject({ messageId: "'=id", deliveryStatus: "'@SUM(A1)" });
    expect(unescapeFormula("'=id")).toBe('=id');
    expect(unescapeFormula("'plain")).toBe("'plain");
  });

  it('leaves the file untouched when nothing changes', async () => {
    const path = await writeReport('r.csv', [row(1)]);
    await updateReport(path, COLUMNS, statuses({ m1: 'DELIVRD' }));
    const before = await stat(path);
    const text = await readFile(path, 'utf8');
    const result = await updateReport(path, COLUMNS, statuses({ m1: 'DELIVRD', other: 'X' }));
    expect(result).toMatchObject({ changed: 0, written: false, identity: fileIdentity(before) });
    expect(await readFile(path, 'utf8')).toBe(text);
    expect((await stat(path)).ino).toBe(before.ino);
    expect(await leftovers()).toEqual([]);
  });

  it("keeps the report's permissions", async () => {
    const path = await writeReport('r.csv', [row(1)]);
    await chmod(path, 0o640);
    await updateReport(path, COLUMNS, statuses({ m1: 'DELIVRD' }));
    expect((await stat(path)).mode & 0o777).toBe(0o640);
  });

  it("keeps a hand-edited or earlier version's rows cell by cell, escapes included", async () => {
    const path = join(dir.path, 'old.csv');
    await writeFile(
      path,
      'row,messageId,outcome,note\n' +
        "1,'=m1,accepted,'-x\n" +
        '2,＝m2,accepted\n' +
        '3,m3,accepted,"a,b"\n',
    );
    const result = await updateReport(path, COLUMNS, statuses({ '=m1': 'DELIVRD', '＝m2': '＠X' }));
    expect(result).toMatchObject({ rows: 3, changed: 2, written: true });
    expect(await readFile(path, 'utf8')).toBe(
      'row,messageId,outcome,note,deliveryStatus,deliveredAt\n' +
        "1,'=m1,accepted,'-x,DELIVRD,T\n" +
        "2,'＝m2,accepted,,'＠X,T\n" +
        '3,m3,accepted,"a,b",,\n',
    );
  });

  it('refuses a JUnit report and a missing one with a usage error', async () => {
    await expect(updateReport(join(dir.path, 'r.xml'), COLUMNS, statuses({}))).rejects.toThrow(
      /JUnit XML report cannot be read back/,
    );
    await expect(
      updateReport(join(dir.path, 'none.csv'), COLUMNS, statuses({})),
    ).rejects.toBeInstanceOf(UsageError);
  });
});

describe('updateReport (ndjson, json)', () => {
  it('updates ndjson rows and keeps a torn last line as it was', async () => {
    const path = await writeReport('r.ndjson', [row(1), row(2)]);
    appendFileSync(path, '{"row":3,"to":"47');
    const result = await updateReport(path, COLUMNS, statuses({ m2: 'UNDELIV' }));
    expect(result).toMatchObject({ rows: 2, changed: 1 });
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(JSON.parse(lines[0]!)).not.toHaveProperty('deliveryStatus');
    expect(JSON.parse(lines[1]!)).toMatchObject({
      messageId: 'm2',
      deliveryStatus: 'UNDELIV',
      deliveredAt: 'T',
    });
    expect(lines[2]).toBe('{"row":3,"to":"47');
  });

  it('updates a json report, keeping its objects (extraInfo stays an object)', async () => {
    const path = await writeReport('r.json', [row(1), row(2)]);
    await updateReport(path, COLUMNS, statuses({ m1: 'DELIVRD' }));
    const rows = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>[];
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      messageId: 'm1',
      deliveryStatus: 'DELIVRD',
      extraInfo: { server: 'sim1' },
    });
    expect(rows[1]).not.toHaveProperty('deliveryStatus');
  });

  it('reads a json report cut short by a killed run, and writes it back whole', async () => {
    // The writer's layout up to the moment of a kill -9: no closing bracket.
    const path = join(dir.path, 'r.json');
    await writeFile(path, `[\n  ${JSON.stringify(row(1))},\n  ${JSON.stringify(row(2))}`);
    await updateReport(path, COLUMNS, statuses({ m2: 'DELIVRD' }));
    const rows = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>[];
    expect(rows.map((r) => [r['messageId'], r['deliveryStatus']])).toEqual([
      ['m1', undefined],
      ['m2', 'DELIVRD'],
    ]);
  });
});

describe('summarizeReport', () => {
  it.each(['r.csv', 'r.json', 'r.ndjson'])(
    'counts %s by outcome, StatusCode and delivery status',
    async (name) => {
      const path = await writeReport(name, [
        row(1),
        row(2),
        row(3),
        row(4, { outcome: 'rejected', statusCode: 103, statusDescription: 'bad number' }),
        row(5, { outcome: 'failed', statusCode: undefined, statusDescription: undefined }),
      ]);
      await updateReport(path, COLUMNS, statuses({ m1: 'DELIVRD', m2: 'EXPIRED' }));
      const counts = await summarizeReport(path);
      expect(counts).toMatchObject({
        total: 5,
        byOutcome: { accepted: 3, rejected: 1, failed: 1, invalid: 0, unknown: 0, skipped: 0 },
        byStatusCode: { '0': { count: 3, description: 'Accepted' }, '103': { count: 1 } },
        byDeliveryStatus: { DELIVRD: 1, EXPIRED: 1 },
        awaitingDeliveryReport: 1,
        unreadable: 0,
      });
    },
  );

  it('counts lines that are not rows instead of failing', async () => {
    const path = join(dir.path, 'r.ndjson');
    await writeFile(path, '{"row":1,"outcome":"accepted","statusCode":0}\nnot json\n[1]\n');
    const rows = [];
    for await (const r of readReport(path)) rows.push(r.kind);
    expect(rows).toEqual(['row', 'unreadable', 'unreadable']);
    expect(await summarizeReport(path)).toMatchObject({ total: 1, unreadable: 2 });
  });

  it.each([
    ['a CSV without an outcome column', 'in.csv', 'to,text\n4741234567,hi\n', /no outcome column/],
    [
      'NDJSON rows without an outcome',
      'in.ndjson',
      '{"to":"4741234567"}\n',
      /no row has an outcome/,
    ],
    ['a JSON array of other records', 'in.json', '[{"to":"4741234567","text":"hi"}]', /no row has/],
    ['lines that are not rows at all', 'notes.ndjson', 'hello\nworld\n', /no row has an outcome/],
  ])('refuses %s: it is not a report (exit 2)', async (_, name, text, why) => {
    const path = join(dir.path, name);
    await writeFile(path, text);
    const refused = summarizeReport(path);
    await expect(refused).rejects.toThrow(`${path} is not an sms-send report`);
    await expect(refused).rejects.toThrow(why);
    await expect(refused).rejects.toMatchObject({ exitCode: 2, code: 'not-a-report' });
  });

  it('a report with no rows yet is a report', async () => {
    const path = join(dir.path, 'empty.csv');
    await writeFile(path, 'row,to,messageId,outcome\n');
    expect(await summarizeReport(path)).toMatchObject({ total: 0 });
  });

  it('says a missing report does not exist', async () => {
    await expect(summarizeReport(join(dir.path, 'none.csv'))).rejects.toThrow(
      /report .*none\.csv does not exist/,
    );
  });
});
