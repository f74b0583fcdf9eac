// The receiver in-process: what it accepts, what it refuses, what it logs, and how it updates the report.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FoldResult } from '../../src/dlr/apply.js';
import { DlrReceiver, paramsFromBody } from '../../src/dlr/receiver.js';
import { acquireLock, lockPath } from '../../src/journal/lock.js';
import { openReport } from '../../src/report/writer.js';
import type { RowResult } from '../../src/message/outcome.js';
import { parseCsv, tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let report: string;
let log: string;
const receivers: DlrReceiver[] = [];

beforeEach(async () => {
  dir = await tempDir();
  report = join(dir.path, 'campaign.report.csv');
  log = join(dir.path, 'dlr.ndjson');
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
  await dir.remove();
});

async function writeReport(ids: string[]): Promise<void> {
  const writer = await openReport(report, { force: true });
  await writer.write(
    ids.map((messageId, i): RowResult => ({
      row: i + 1,
      to: `474100000${i}`,
      messageId,
      outcome: 'accepted',
      statusCode: 0,
      statusDescription: 'Accepted',
      attempts: 1,
    })),
  );
  await writer.close();
}

async function start(updateIntervalMs = 20): Promise<DlrReceiver> {
  const receiver = await DlrReceiver.start({ reportPath: report, logPath: log, updateIntervalMs });
  receivers.push(receiver);
  return receiver;
}

/** Polls until the check passes, up to a deadline; the last failure is the test's failure. */
function eventually<T>(check: () => Promise<T> | T): Promise<T> {
  return vi.waitFor(check, { timeout: 10_000, interval: 20 });
}

async function rows(): Promise<Record<string, string>[]> {
  return parseCsv(await readFile(report, 'utf8'));
}

async function logLines(): Promise<Record<string, unknown>[]> {
  return (await readFile(log, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function folds(receiver: DlrReceiver): FoldResult[] {
  const seen: FoldResult[] = [];
  receiver.on('fold', (f) => seen.push(f));
  return seen;
}

describe('DlrReceiver', () => {
  it('takes GET, POST JSON and POST form on any path, answers 200 and updates the report', async () => {
    await writeReport(['a', 'b', 'c', 'd']);
    const receiver = await start();
    const get = await fetch(`${receiver.url}/dlr?msgid=a&status=DELIVRD&timestamp=20250301120000`);
    expect([get.status, await get.text()]).toEqual([200, 'OK\n']);
    const json = await fetch(`${receiver.url}/any/where`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ MessageId: 'b', Status: 'EXPIRED', TransactionId: 't-b' }),
    });
    expect(json.status).toBe(200);
    const form = await fetch(`${receiver.url}/`, {
      method: 'POST',
      body: new URLSearchParams({ MSGID: 'c', STATUS: 'UNDELIV' }),
    });
    expect(form.status).toBe(200);
    // A POST whose parameters are in the query string.
    const query = await fetch(`${receiver.url}/dlr?messageid=d&status=DELIVRD`, { method: 'POST' });
    expect(query.status).toBe(200);

    await eventually(async () => {
      expect((await rows()).map((r) => [r.messageId, r.deliveryStatus])).toEqual([
        ['a', 'DELIVRD'],
        ['b', 'EXPIRED'],
        ['c', 'UNDELIV'],
        ['d', 'DELIVRD'],
      ]);
    });
    expect((await rows())[0]?.deliveredAt).toBe('2025-03-01T12:00:00Z');
    expect(receiver.counts).toEqual({
      received: 4,
      byStatus: { DELIVRD: 2, EXPIRED: 1, UNDELIV: 1 },
      withoutStatus: 0,
      malformed: 0,
      refused: { unsigned: 0, 'bad signature': 0, 'unknown id': 0, 'bad status': 0 },
      notLogged: 0,
    });
    expect(
      (await logLines()).map((l) => [l['method'], l['path'], l['messageId'], l['status']]),
    ).toEqual([
      ['GET', '/dlr', 'a', 'DELIVRD'],
      ['POST', '/any/where', 'b', 'EXPIRED'],
      ['POST', '/', 'c', 'UNDELIV'],
      ['POST', '/dlr', 'd', 'DELIVRD'],
    ]);
  });

  it('answers malformed requests 4xx, logs them, and keeps running', async () => {
    await writeReport(['a']);
    const receiver = await start();
    const answers = [
      await fetch(`${receiver.url}/dlr?status=DELIVRD`),
      await fetch(`${receiver.url}/dlr`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"MessageId":',
      }),
      await fetch(`${receiver.url}/dlr`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '["a"]',
      }),
      await fetch(`${receiver.url}/dlr`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/xml' },
        body: '<a/>',
      }),
      await fetch(`${receiver.url}/dlr?msgid=a`, { method: 'PUT' }),
      await fetch(`${receiver.url}/dlr`, { method: 'POST', body: 'x'.repeat(64 * 1024 + 1) }),
    ];
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 405, 413]);
    expect(await answers[0]!.text()).toBe('no message id (msgid or MessageId)\n');
    const ok = await fetch(`${receiver.url}/dlr?msgid=a&status=DELIVRD`);
    expect(ok.status).toBe(200);

    const lines = await logLines();
    expect(lines.map((l) => l['malformed'] ?? 'ok')).toEqual([
      'no message id (msgid or MessageId)',
      'body is not valid JSON',
      'JSON body is not an object',
      'Content-Type application/xml is not accepted (JSON or a form)',
      'method PUT is not accepted (GET or POST)',
      'body larger than 65536 bytes',
      'ok',
    ]);
    expect(lines[1]).toMatchObject({ body: '{"MessageId":' });
    expect(receiver.counts).toMatchObject({ received: 1, malformed: 6 });
    await eventually(async () => expect((await rows())[0]?.deliveryStatus).toBe('DELIVRD'));
  });

  it('logs duplicates and unknown MessageIds, and records the latest report', async () => {
    await writeReport(['a']);
    const receiver = await start();
    const seen = folds(receiver);
    for (const query of [
      'msgid=a&status=ENROUTE&timestamp=20250301120000',
      'msgid=a&status=DELIVRD&timestamp=20250301120500',
      'msgid=a&status=ENROUTE&timestamp=20250301120100',
      'msgid=zzz&status=DELIVRD',
      'msgid=a',
    ]) {
      expect((await fetch(`${receiver.url}/dlr?${query}`)).status).toBe(200);
    }
    expect((await logLines()).map((l) => l['messageId'])).toEqual(['a', 'a', 'a', 'zzz', 'a']);
    await eventually(async () => {
      expect((await rows())[0]).toMatchObject({
        deliveryStatus: 'DELIVRD',
        deliveredAt: '2025-03-01T12:05:00Z',
      });
      expect(seen.at(-1)).toMatchObject({
        kind: 'updated',
        matched: 1,
        unmatched: 1,
        unmatchedSample: ['zzz'],
      });
    });
    expect(receiver.counts).toMatchObject({ received: 5, withoutStatus: 1 });
  });

  it('waits while a sending run holds the lock, then updates the report', async () => {
    await writeReport(['a']);
    const lock = await acquireLock(lockPath(report));
    const receiver = await start();
    const seen = folds(receiver);
    await fetch(`${receiver.url}/dlr?msgid=a&status=DELIVRD`);
    await eventually(() => expect(seen.filter((f) => f.kind === 'deferred')).not.toHaveLength(0));
    expect(seen[0]).toMatchObject({ kind: 'deferred', reason: 'locked' });
    expect((await rows())[0]).not.toHaveProperty('deliveryStatus');
    await lock.release();
    await eventually(async () => expect((await rows())[0]?.deliveryStatus).toBe('DELIVRD'));
  });

  it('waits for a report that does not exist yet', async () => {
    const receiver = await start();
    const seen = folds(receiver);
    await fetch(`${receiver.url}/dlr?msgid=a&status=DELIVRD`);
    await eventually(() => expect(seen[0]).toMatchObject({ kind: 'deferred', reason: 'missing' }));
    await writeReport(['x', 'a']);
    await eventually(async () =>
      expect((await rows()).map((r) => r.deliveryStatus)).toEqual(['', 'DELIVRD']),
    );
  });

  it('puts the columns back after a run rewrites the report', async () => {
    await writeReport(['a']);
    const receiver = await start();
    await fetch(`${receiver.url}/dlr?msgid=a&status=DELIVRD`);
    await eventually(async () => expect((await rows())[0]?.deliveryStatus).toBe('DELIVRD'));
    // What --force or --resume does: the report written again from scratch, without the
    // columns, under the campaign's lock (which the receiver holds for a moment while it folds).
    const lock = await eventually(() => acquireLock(lockPath(report)));
    await writeReport(['a', 'b']);
    await lock.release();
    await eventually(async () =>
      expect((await rows()).map((r) => r.deliveryStatus)).toEqual(['DELIVRD', '']),
    );
  });

  it('updates the report one last time on stop', async () => {
    await writeReport(['a']);
    const receiver = await start(60_000);
    await fetch(`${receiver.url}/dlr?msgid=a&status=DELIVRD`);
    expect((await rows())[0]).not.toHaveProperty('deliveryStatus');
    const final = await receiver.stop();
    expect(final).toMatchObject({ kind: 'updated', matched: 1, changedRows: 1 });
    expect((await rows())[0]?.deliveryStatus).toBe('DELIVRD');
    await expect(fetch(`${receiver.url}/dlr?msgid=a`)).rejects.toThrow();
  });

  it('turns an unknown row it gets a delivery report for into accepted, and counts it', async () => {
    const writer = await openReport(report, { force: true });
    await writer.write(
      ['u', 'v'].map((messageId, i): RowResult => ({
        row: i + 1,
        to: `474100000${i}`,
        messageId,
        outcome: 'unknown',
        error: 'HTTP 500 from the gateway',
        attempts: 1,
      })),
    );
    await writer.close();
    const receiver = await start(60_000);
    await fetch(`${receiver.url}/dlr?msgid=u&status=DELIVRD`);
    expect(await receiver.stop()).toMatchObject({ kind: 'updated', confirmed: 1 });
    expect(receiver.confirmed).toBe(1);
    expect((await rows()).map((r) => [r.outcome, r.statusDescription, r.error])).toEqual([
      ['accepted', 'confirmed by delivery report', 'HTTP 500 from the gateway'],
      ['unknown', '', 'HTTP 500 from the gateway'],
    ]);
  });

  it('appends to an earlier log instead of replacing it', async () => {
    await writeFile(
      log,
      '{"receivedAt":"x","method":"GET","path":"/","messageId":"old","params":{}}\n',
    );
    const receiver = await start();
    await fetch(`${receiver.url}/dlr?msgid=new`);
    await receiver.stop();
    expect((await logLines()).map((l) => l['messageId'])).toEqual(['old', 'new']);
  });
});

describe('paramsFromBody', () => {
  it.each([
    [
      'application/json',
      '{"msgid":"a","n":1,"ok":true,"o":{"x":1}}',
      { msgid: 'a', n: '1', ok: 'true', o: '{"x":1}' },
    ],
    ['application/json; charset=utf-8', '\ufeff{"msgid":"a"}', { msgid: 'a' }],
    ['application/x-www-form-urlencoded', 'msgid=a%20b&status=X', { msgid: 'a b', status: 'X' }],
    [undefined, '{"msgid":"a"}', { msgid: 'a' }],
    ['text/plain', 'msgid=a', { msgid: 'a' }],
    ['application/json', '', {}],
  ])('reads %s %j', (type, body, params) => {
    expect(paramsFromBody(type, body)).toEqual({ ok: true, params });
  });
});

describe('a receiver that keeps reports in a store', () => {
  type Kept = { messageId: string; status: string | undefined; campaign: string | undefined };

  async function keeping(keep: (report: Kept) => Promise<void>): Promise<DlrReceiver> {
    const receiver = await DlrReceiver.start({
      logPath: log,
      verify: () => ({ ok: true, campaign: 'c1' }),
      keep: (r, campaign) => keep({ messageId: r.messageId, status: r.status, campaign }),
    });
    receivers.push(receiver);
    return receiver;
  }

  it('answers 200 only once the report is kept, under the campaign its proof names', async () => {
    const kept: Kept[] = [];
    let letGo: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const receiver = await keeping(async (r) => {
      await held;
      kept.push(r);
    });
    let answered = false;
    const response = fetch(`${receiver.url}/dlr?msgid=m1&status=DELIVRD`).then((res) => {
      answered = true;
      return res;
    });
    await eventually(() => expect(receiver.counts.received).toBe(1));
    expect(answered).toBe(false);
    letGo();
    expect((await response).status).toBe(200);
    expect(kept).toEqual([{ messageId: 'm1', status: 'DELIVRD', campaign: 'c1' }]);
  });

  it('answers 500 when the store does not keep it, so the gateway sends it again', async () => {
    const receiver = await keeping(() => Promise.reject(new Error('the database did not answer')));
    const failures: string[] = [];
    receiver.on('keepFailed', (error) => failures.push(error.message));
    const res = await fetch(`${receiver.url}/dlr?msgid=m1&status=DELIVRD`);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('could not record the report; send it again\n');
    expect(failures).toEqual(['the database did not answer']);
    // The log still has it: the receiver's own record of what came.
    expect(await logLines()).toMatchObject([{ messageId: 'm1', status: 'DELIVRD' }]);
  });

  it('a report its verifier could not judge (the store did not answer) is answered 500, kept nowhere but the log', async () => {
    const kept: Kept[] = [];
    const receiver = await DlrReceiver.start({
      logPath: log,
      verify: () => Promise.reject(new Error('the database did not answer')),
      keep: (r, campaign) => {
        kept.push({ messageId: r.messageId, status: r.status, campaign });
        return Promise.resolve();
      },
    });
    receivers.push(receiver);
    const failures: string[] = [];
    receiver.on('keepFailed', (error) => failures.push(error.message));
    const res = await fetch(`${receiver.url}/dlr?msgid=m1&status=DELIVRD`);
    expect(res.status).toBe(500);
    expect(failures).toEqual(['the database did not answer']);
    expect(kept).toEqual([]);
    expect(receiver.counts).toMatchObject({ received: 0, refused: { 'unknown id': 0 } });
    expect(await logLines()).toMatchObject([{ messageId: 'm1', params: { status: 'DELIVRD' } }]);
  });

  it('keeps no report without a status (nothing to record), and answers it 200', async () => {
    const kept: Kept[] = [];
    const receiver = await keeping((r) => {
      kept.push(r);
      return Promise.resolve();
    });
    expect((await fetch(`${receiver.url}/dlr?msgid=m1`)).status).toBe(200);
    expect(kept).toEqual([]);
  });

  it('answers its health path 200, logging and counting nothing', async () => {
    const receiver = await keeping(() => Promise.resolve());
    const res = await fetch(receiver.healthUrl);
    expect(res.status).toBe(200);
    expect(receiver.healthUrl).toBe(`${receiver.url}/healthz`);
    expect(receiver.counts).toMatchObject({ received: 0, malformed: 0 });
    await receiver.stop();
    expect(await readFile(log, 'utf8')).toBe('');
  });
});
