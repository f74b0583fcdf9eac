// `sms-send dlr` stopped while a send holds the report says what the receiver did, in its own
// words: its reports could not be folded in while that run holds the report, they are kept in its
// log, and `dlr apply` folds them later; never the send's "nothing was sent" or "delete the lock"
// (the run that holds it is alive). `dlr apply` meeting the same lock says its own words too.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { acquireLock, lockPath, type Lock } from '../../src/journal/lock.js';
import { REPORT_COLUMNS } from '../../src/report/row.js';
import { signedCampaign } from '../helpers/dlr-proof.js';
import { collect, runCli, startCli } from '../helpers/cli.js';
import { suiteFolder } from '../helpers/suite.js';

const suite = suiteFolder();
const TEMPLATE = /^(http:\/\/127\.0\.0\.1:\d+)\/dlr\?/m;

let report: string;
let log: string;
let env: Record<string, string>;
let proof: (messageId: string) => string;
/** The lock a live sending run holds: this test process's own. */
let held: Lock;

beforeAll(async () => {
  const stateDir = join(suite.path, 'state');
  report = join(suite.path, 'campaign.report.csv');
  log = `${report}.dlr.ndjson`;
  env = { SMS_SEND_STATE_DIR: stateDir };
  proof = await signedCampaign(stateDir, 'c0ffee0123456789', [report]);
  const cells = (row: number) => ({
    row: String(row),
    to: `474100000${row}`,
    messageId: `m${row}`,
  });
  const rows = [1, 2].map((row) =>
    REPORT_COLUMNS.map((c) => ({ ...cells(row), outcome: 'accepted' })[c as 'row'] ?? ''),
  );
  await writeFile(report, stringify([[...REPORT_COLUMNS], ...rows]));
  held = await acquireLock(lockPath(report), 'sending this campaign');
});
afterAll(() => held.release());

describe('a send holds the report', () => {
  it('the receiver, stopped, says its reports are in its log and how to fold them in later', async () => {
    const receiver = startCli(['dlr', '--port', '0', '--report', report], { cwd: suite.path, env });
    const ended = collect(receiver);
    let stdout = '';
    receiver.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const base = await vi.waitFor(
      () => TEMPLATE.exec(stdout)?.[1] ?? Promise.reject(new Error('no template yet')),
      { timeout: 15_000, interval: 50 },
    );
    const answer = await fetch(`${base}/dlr?msgid=m1&status=DELIVRD&smsig=${proof('m1')}`);
    expect(answer.status).toBe(200);
    receiver.kill('SIGTERM');
    const run = await ended;
    expect(run.code, run.stderr).toBe(1);
    const said = `${run.stdout}\n${run.stderr}`;
    expect(said).not.toContain('nothing was sent');
    expect(said).not.toMatch(/delete .*\.lock/);
    expect(run.stdout).toContain(
      `report  ${report} not updated: another sms-send is writing to it (pid ${process.pid}`,
    );
    expect(run.stdout).toContain(`the delivery reports received are kept in ${log}`);
    const fold = run.stdout.split('\n').find((line) => line.includes('fold them in'));
    expect(fold).toMatch(/^ {2}once that run has ended, fold them in: (npx )?sms-send dlr apply /);
    expect(fold).toContain(`dlr apply --report ${report} --from ${log}`);
  });

  it('dlr apply says the report is held and to run it again once the run has ended', async () => {
    await writeFile(
      join(suite.path, 'log.ndjson'),
      `${JSON.stringify({ receivedAt: '2025-03-01T12:00:00.000Z', method: 'GET', path: '/dlr', messageId: 'm2', status: 'DELIVRD', params: { smsig: proof('m2') } })}\n`,
    );
    const run = await runCli(['dlr', 'apply', '--report', report, '--from', 'log.ndjson'], {
      cwd: suite.path,
      env,
    });
    expect(run.code).toBe(4);
    expect(run.stderr).not.toContain('nothing was sent');
    expect(run.stderr).not.toMatch(/delete .*\.lock/);
    expect(run.stderr).toContain(
      `cannot fold the log into ${report} yet: another sms-send is writing to it (pid ${process.pid}`,
    );
    expect(run.stderr).toContain(
      'nothing was changed; run dlr apply again once that run has ended',
    );
  });
});
