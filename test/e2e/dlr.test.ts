// Delivery reports end to end: the built binary receives the simulator's reports for a real campaign.
import type { ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REPORT_COLUMNS } from '../../src/report/row.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { proofParam, signedCampaign } from '../helpers/dlr-proof.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';

const RECORDS = 30;
const MIX = { DELIVRD: 0.6, UNDELIV: 0.2, EXPIRED: 0.2 };
const TEMPLATE =
  /^(http:\/\/127\.0\.0\.1:\d+)\/dlr\?msgid=\[\$MSGID\]&status=\[\$STATUS\]&timestamp=\[\$TIMESTAMP\]$/m;
const CREDENTIALS = { SMS_SEND_USERNAME: 'customer', SMS_SEND_PASSWORD: 'secret' };

/** Polls until the check passes, up to a deadline; the last failure is the test's failure. */
function eventually<T>(check: () => Promise<T> | T, seconds = 15): Promise<T> {
  return vi.waitFor(check, { timeout: seconds * 1000, interval: 50 });
}

describe('sms-send dlr', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let sim: Simulator;
  let receiver: ChildProcess;
  let stdout = '';
  let stderr = '';
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let campaign: string;
  let report: string;
  let log: string;
  let template: string;
  let base: string;
  /** One state directory for the suite: the campaign's, its secret, and the receiver's. */
  let env: Record<string, string>;
  /** The status the simulator chose for each MessageId, and what the test sent on top. */
  const expected: Record<string, string> = {};

  beforeAll(async () => {
    dir = await tempDir();
    campaign = join(dir.path, 'campaign.csv');
    report = join(dir.path, 'campaign.report.csv');
    log = `${report}.dlr.ndjson`;
    await writeCampaignCsv(campaign, RECORDS);
    env = { SMS_SEND_STATE_DIR: join(dir.path, 'state') };
    sim = await startSimulator({ seed: 3, deliveryReports: { statusMix: MIX, delayMs: 10 } });
    receiver = startCli(['dlr', '--port', '0', '--report', report, '--verbose'], {
      cwd: dir.path,
      env,
    });
    receiver.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    receiver.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    exited = new Promise((resolve) =>
      receiver.on('close', (code, signal) => resolve({ code, signal })),
    );
    const match = await eventually(() => {
      const found = TEMPLATE.exec(stdout);
      if (!found) throw new Error(`no URL template printed yet: ${stdout} ${stderr}`);
      return found;
    });
    template = match[0];
    base = match[1]!;
  });

  afterAll(async () => {
    if (receiver.exitCode === null && receiver.signalCode === null) receiver.kill('SIGKILL');
    await sim.stop();
    await dir.remove();
  });

  it('records in every row the delivery status the simulator chose', async () => {
    const send = await runInProcess(
      // Several requests one at a time, so reports arrive while the run still holds the report.
      [campaign, '--endpoint', sim.url, '--dlr-url', template, '--report', report].concat([
        '--batch-size',
        '5',
        '--concurrency',
        '1',
      ]),
      { cwd: dir.path, env: { ...CREDENTIALS, ...env } },
    );
    expect(send.stderr).toBe('');
    expect(send.code).toBe(0);
    await sim.deliveryReportsSettled();
    const calls = sim.deliveryReportCalls;
    expect(calls).toHaveLength(RECORDS);
    expect(calls.every((c) => c.method === 'GET' && c.httpStatus === 200)).toBe(true);
    for (const call of calls) expected[call.messageId] = call.status;
    expect(new Set(Object.values(expected)).size).toBeGreaterThan(1);

    await eventually(async () => {
      const rows = parseCsv(await readFile(report, 'utf8'));
      expect(rows).toHaveLength(RECORDS);
      expect(rows.map((r) => r.row)).toEqual(
        Array.from({ length: RECORDS }, (_, i) => String(i + 1)),
      );
      for (const row of rows) {
        expect(row.deliveryStatus).toBe(expected[row.messageId!]);
        expect(row.deliveredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      }
    });
  });

  it('logs duplicates and unknown MessageIds, refuses malformed requests with 400 and keeps running', async () => {
    const rows = parseCsv(await readFile(report, 'utf8'));
    const first = rows[0]!.messageId!;
    const second = rows[1]!.messageId!;
    // Reports as the gateway would make them: each carries its message's proof.
    const proof = await proofParam(env.SMS_SEND_STATE_DIR!);
    const answers = [
      // A duplicate older than what the row has: logged, does not win.
      await fetch(
        `${base}/dlr?msgid=${first}&status=ENROUTE&timestamp=20000101000000&${proof(first)}`,
      ),
      // A later one as a JSON POST on another path: wins.
      await fetch(`${base}/reports?${proof(second)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ MessageId: second, Status: 'LATEST', Timestamp: '20991231235959' }),
      }),
      await fetch(`${base}/dlr?msgid=no-such-id&status=DELIVRD&${proof('no-such-id')}`),
      await fetch(`${base}/dlr?status=DELIVRD`),
      await fetch(`${base}/dlr`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"MessageId":',
      }),
      await fetch(`${base}/dlr?msgid=${first}&status=${expected[first]!}&${proof(first)}`),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 400, 400, 200]);
    expected[second] = 'LATEST';

    await eventually(async () => {
      const now = parseCsv(await readFile(report, 'utf8'));
      expect(now.map((r) => r.deliveryStatus)).toEqual(now.map((r) => expected[r.messageId!]));
    });
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed).toHaveLength(RECORDS + answers.length);
    expect(parsed.filter((l) => l['messageId'] === first)).toHaveLength(3);
    expect(parsed.filter((l) => l['messageId'] === 'no-such-id')).toHaveLength(1);
    expect(parsed.filter((l) => typeof l['malformed'] === 'string')).toHaveLength(2);
  });

  it('stops on SIGINT after a last update and prints the counts', async () => {
    receiver.kill('SIGINT');
    const { code } = await exited;
    expect(code).toBe(0);
    expect(stdout).toContain(`✔ ${RECORDS + 4} delivery reports received`);
    expect(stdout).toMatch(/malformed\s+2/);
    expect(stdout).toContain('1 not in the report (kept in the log), e.g. no-such-id');
    expect(stderr).toContain('400 GET /dlr: no message id (msgid or MessageId)');
    expect(stdout.includes('\u001b[')).toBe(false);
  });

  it('sms-send report counts by outcome, StatusCode and delivery status', async () => {
    const json = await runInProcess(['report', report, '--json']);
    expect(json.code).toBe(0);
    const counts = (JSON.parse(json.stdout) as { report: Record<string, unknown> }).report;
    const byStatus: Record<string, number> = {};
    for (const status of Object.values(expected)) byStatus[status] = (byStatus[status] ?? 0) + 1;
    expect(counts).toMatchObject({
      total: RECORDS,
      byOutcome: { accepted: RECORDS },
      byStatusCode: { '0': { count: RECORDS } },
      byDeliveryStatus: byStatus,
      awaitingDeliveryReport: 0,
    });
    const text = await runInProcess(['summary', report]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${report}: ${RECORDS} rows`);
    expect(text.stdout).toContain('by delivery status');
  });

  it.each([
    [['dlr', '--report', 'r.csv', '--port', '70000'], /--port "70000": must be a port, 0 to 65535/],
    [['dlr', '--report', 'no/such/folder/r.csv', '--port', '0'], /does not exist/],
    [['dlr', '--report', 'r.xml', '--port', '0'], /JUnit XML/],
    [
      ['dlr', 'apply', '--report', 'none.csv', '--from', 'log.ndjson'],
      /report none\.csv does not exist/,
    ],
    [['report', 'none.csv'], /report none\.csv does not exist/],
  ])('exits 2 for sms-send %j', async (args, message) => {
    const result = await runInProcess(args, { cwd: dir.path });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

// On files of its own: it passes or fails alone, whatever the receiver above did.
describe('sms-send dlr apply', () => {
  it('folds the log into the report: the final status wins, unmatched and malformed counted, twice changes nothing', async () => {
    const dir = await tempDir();
    try {
      // A campaign of the state directory signed these MessageIds; no campaign wrote this report.
      const stateDir = join(dir.path, 'state');
      const proof = await signedCampaign(stateDir, 'c0ffee0123456789');
      const bare = join(dir.path, 'bare.report.csv');
      const rows = [1, 2, 3].map((row) => {
        const cells: Record<string, string> = {
          row: String(row),
          to: `474100000${row}`,
          messageId: `m${row}`,
          outcome: 'accepted',
          statusCode: '0',
        };
        return REPORT_COLUMNS.map((c) => cells[c] ?? '');
      });
      await writeFile(bare, stringify([[...REPORT_COLUMNS], ...rows]));
      const log = join(dir.path, 'log.ndjson');
      const line = (messageId: string, status: string, at: string) =>
        JSON.stringify({
          receivedAt: at,
          method: 'GET',
          path: '/dlr',
          messageId,
          status,
          params: { smsig: proof(messageId) },
        });
      const malformed = JSON.stringify({
        receivedAt: '2025-03-01T12:00:09.000Z',
        method: 'GET',
        path: '/dlr',
        malformed: 'no message id (msgid or MessageId)',
        params: {},
      });
      await writeFile(
        log,
        [
          // An interim report, then the final one.
          line('m1', 'ENROUTE', '20250301120001'),
          line('m1', 'DELIVRD', '20250301120005'),
          line('m2', 'UNDELIV', '20250301120006'),
          line('no-such-id', 'DELIVRD', '20250301120007'),
          malformed,
          malformed,
        ].join('\n') + '\n',
      );

      const env = { SMS_SEND_STATE_DIR: stateDir };
      const apply = await runInProcess(['dlr', 'apply', '--report', bare, '--from', log], { env });
      // One report's MessageId is not in the report: exit 1, and it says which.
      expect(apply.code).toBe(1);
      expect(apply.stdout).toContain(`4 delivery reports folded into ${bare}`);
      expect(apply.stdout).toMatch(
        /unmatched\s+1\s+message ids not in the report, e\.g\. no-such-id/,
      );
      expect(apply.stdout).toMatch(/malformed\s+2\s+log lines skipped/);
      const folded = await readFile(bare, 'utf8');
      expect(parseCsv(folded).map((r) => [r.messageId, r.deliveryStatus])).toEqual([
        ['m1', 'DELIVRD'],
        ['m2', 'UNDELIV'],
        ['m3', ''],
      ]);

      const again = await runInProcess(['dlr', 'apply', '--report', bare, '--from', log], { env });
      expect(again.code).toBe(1);
      expect(again.stdout).toContain('0 rows changed');
      expect(await readFile(bare, 'utf8')).toBe(folded);
    } finally {
      await dir.remove();
    }
  });
});
