// Campaign identity and state, as a user meets them: the cron line killed and resumed under another
// report name, re-runs refused whatever the report is called, named campaigns, stdin campaigns, an
// unreachable gateway, and `sms-send campaigns`. The simulator's ledger is the witness.
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findDuplicates, startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startCli, type CliResult, killLeft } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { mobile, parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import {
  countOutcomes,
  journalCounts,
  promiseBreaches,
  stateJournal,
  waitFor,
} from '../helpers/reliability.js';

const ENV = { SMS_SEND_USERNAME: 'camp-user', SMS_SEND_PASSWORD: 'camp-pw' };

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator | undefined;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  killLeft(children);
  await sim?.stop();
  sim = undefined;
  await dir.remove();
});

async function startSim(latencyMs = 0): Promise<Simulator> {
  sim = await startSimulator({
    credentials: { username: ENV.SMS_SEND_USERNAME, password: ENV.SMS_SEND_PASSWORD },
    faults: { latencyMs },
  });
  return sim;
}

function cli(args: string[], stdin?: string): Promise<CliResult> {
  return runInProcess(args, { cwd: dir.path, env: ENV, stdin });
}

interface CampaignDoc {
  id: string;
  status: string;
  runs: number;
  records: number;
  counts: Record<string, number>;
  report: string | null;
  reports: string[];
}

async function campaigns(): Promise<CampaignDoc[]> {
  const result = await cli(['campaigns', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { campaigns: CampaignDoc[] }).campaigns;
}

const nonZero = (counts: Record<string, number>) =>
  Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));

describe('the cron line, killed and resumed on a later day', { timeout: 120_000 }, () => {
  it('kill -9 mid-run, then --resume under another report name: every record once in the new report, nothing twice', async () => {
    const RECORDS = 1500;
    await startSim(40);
    await mkdir(join(dir.path, 'reports'));
    await writeCampaignCsv(join(dir.path, 'tonight.csv'), RECORDS);
    const base = ['tonight.csv', '--endpoint', sim!.url, '--yes', '--quiet'];
    const sending = ['--batch-size', '20', '--concurrency', '2'];
    const child = startCli([...base, ...sending, '--report', 'reports/{date}-{name}.csv'], {
      cwd: dir.path,
      env: ENV,
    });
    children.push(child);
    await waitFor(async () => (await journalCounts(stateJournal())).done >= 5, 'five batches');
    child.kill('SIGKILL');
    await waitFor(() => child.signalCode !== null, 'the kill');
    const [first] = await readdir(join(dir.path, 'reports'));
    expect(first).toMatch(/^\d{4}-\d\d-\d\d-tonight\.csv$/);
    const [killed] = await campaigns();
    expect(killed).toMatchObject({ status: 'interrupted', runs: 1, records: RECORDS });
    // The list reads manifests only, and gives no counts where the manifest has only its run's
    // start; `campaigns show` counts what the journal settled (every batch of 20 answered before
    // the kill).
    const settled = (await journalCounts(stateJournal())).done * 20;
    expect(settled).toBeGreaterThanOrEqual(100);
    expect(killed!.counts).toBeNull();
    const shown = await cli(['campaigns', 'show', killed!.id, '--json']);
    expect(nonZero((JSON.parse(shown.stdout) as CampaignDoc).counts)).toEqual({
      accepted: settled,
    });

    // A plain re-run names --resume instead of sending anything.
    const plain = await cli([...base, '--report', 'reports/next-{name}.csv']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/was interrupted on \d{4}-\d\d-\d\d/);
    expect(plain.stderr).toContain('--resume');

    // "After midnight" {date} names another file: the campaign is found all the same.
    sim!.setFaults({});
    const before = sim!.ledger.length;
    const resumed = await cli([...base, '--report', 'reports/next-{name}.csv', '--resume']);
    expect([0, 1], resumed.stderr).toContain(resumed.code);
    const rows = parseCsv(await readFile(join(dir.path, 'reports', 'next-tonight.csv'), 'utf8'));
    expect(promiseBreaches(rows, RECORDS, sim!.ledger)).toEqual([]);
    expect(findDuplicates(sim!.ledger)).toEqual([]);
    expect(sim!.ledger.length).toBeGreaterThan(before);
    const [done] = await campaigns();
    expect(done).toMatchObject({ id: killed!.id, status: 'finished', runs: 2 });
    expect(nonZero(done!.counts)).toEqual(countOutcomes(rows));
    expect(done!.report).toBe(join(dir.path, 'reports', 'next-tonight.csv'));
    // The killed run's report lock is not left behind by the resume under another name.
    expect(await readdir(join(dir.path, 'reports'))).toEqual(
      expect.not.arrayContaining([`${first!}.lock`]),
    );
    expect(done!.reports).toEqual([
      join(dir.path, 'reports', first!),
      join(dir.path, 'reports', 'next-tonight.csv'),
    ]);
  });
});

describe('a sent campaign is refused whatever its report is called', () => {
  it('a new report name, {time}, or --resume into a fresh report sends nothing again', async () => {
    await startSim();
    await writeCampaignCsv(join(dir.path, 'campaign.csv'), 12);
    const base = ['campaign.csv', '--endpoint', sim!.url];
    expect((await cli(base)).code).toBe(0);
    expect(sim!.ledger).toHaveLength(12);

    for (const report of ['fresh-name.csv', '{time}-{name}.csv']) {
      const again = await cli([...base, '--report', report]);
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/was already sent on \d{4}-\d\d-\d\d: 12 accepted/);
      expect(again.stderr).toContain(join(dir.path, 'campaign.report.csv'));
    }
    // --resume of a finished campaign settles everything from its journal: a complete report, no sends.
    const resumed = await cli([...base, '--report', 'fresh-name.csv', '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('12 records settled by earlier runs were not sent again');
    expect(resumed.stdout).toContain(
      `(complete: every record of the campaign; the earlier run wrote ${join(dir.path, 'campaign.report.csv')})`,
    );
    expect(sim!.ledger).toHaveLength(12);
    const rows = parseCsv(await readFile(join(dir.path, 'fresh-name.csv'), 'utf8'));
    expect(countOutcomes(rows)).toEqual({ accepted: 12 });
    expect(await readdir(dir.path)).not.toContain(expect.stringMatching(/^\d{6}-campaign\.csv$/));

    const [state] = await campaigns();
    expect(state).toMatchObject({ status: 'finished', runs: 2, records: 12 });
    expect(nonZero(state!.counts)).toEqual({ accepted: 12 });
  });

  it('--force sends it all again, on purpose', async () => {
    await startSim();
    await writeCampaignCsv(join(dir.path, 'campaign.csv'), 3);
    const base = ['campaign.csv', '--endpoint', sim!.url];
    expect((await cli(base)).code).toBe(0);
    const again = await cli([...base, '--force']);
    expect(again.code, again.stderr).toBe(0);
    expect(sim!.ledger).toHaveLength(6);
  });
});

describe('--resume only ever continues a campaign that ran', () => {
  it('with other settings there is nothing to resume: exit 2, nothing sent, the campaign from the same files named', async () => {
    await startSim();
    await writeCampaignCsv(join(dir.path, 'rs.csv'), 2);
    const base = ['rs.csv', '--endpoint', sim!.url];
    expect((await cli([...base, '--from', 'ShopA'])).code).toBe(0);
    const [shopA] = await campaigns();
    const other = await cli([...base, '--from', 'ShopB', '--resume', '--report', 'rs2.csv']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('nothing to resume');
    expect(other.stderr).toContain(`campaign ${shopA!.id} (finished, `);
    expect(other.stderr).toContain('by its settings, not its files');
    expect(other.stderr).toContain('run with exactly the settings it was started with');
    expect(sim!.ledger).toHaveLength(2);
    expect(await readdir(dir.path)).not.toContain('rs2.csv');
  });

  it('a dry run says what a real run would: refused once sent, and on --resume what is left', async () => {
    await startSim();
    await writeCampaignCsv(join(dir.path, 'dry.csv'), 3);
    const base = ['dry.csv', '--endpoint', sim!.url];
    expect((await cli(base)).code).toBe(0);
    const dry = await cli([...base, '--dry-run', '--json']);
    expect(dry.code).toBe(2);
    const doc = JSON.parse(dry.stdout) as { plan: object; error: { code: string } };
    expect(doc.error.code).toBe('already-sent');
    const resumed = await cli([...base, '--dry-run', '--resume', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ plan: { valid: 3, leftToSend: 0 } });
    expect(sim!.ledger).toHaveLength(3);
  });
});

describe('--campaign NAME', () => {
  it('two names over the same content both send, each with its own MessageIds', async () => {
    await startSim();
    await writeCampaignCsv(join(dir.path, 'oncall.csv'), 2);
    const base = ['oncall.csv', '--endpoint', sim!.url];
    const monday = await cli([...base, '--campaign', 'oncall-mon', '--report', 'mon.csv']);
    const tuesday = await cli([...base, '--campaign', 'oncall-tue', '--report', 'tue.csv']);
    expect([monday.code, tuesday.code]).toEqual([0, 0]);
    expect(sim!.ledger).toHaveLength(4);
    expect(findDuplicates(sim!.ledger)).toEqual([]);
    // The same name again is the same campaign: refused.
    const repeat = await cli([...base, '--campaign', 'oncall-mon', '--report', 'again.csv']);
    expect(repeat.code).toBe(2);
    expect(repeat.stderr).toContain('campaign oncall-mon was already sent');
    expect(sim!.ledger).toHaveLength(4);
    expect((await campaigns()).map((c) => c.id).sort()).toEqual(['oncall-mon', 'oncall-tue']);
  });

  it('{date} in the name gives one campaign a day', async () => {
    await startSim();
    await writeCampaignCsv(join(dir.path, 'ping.csv'), 1);
    const result = await cli([
      'ping.csv',
      '--endpoint',
      sim!.url,
      '--campaign',
      'ping-{date}',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const summary = (JSON.parse(result.stdout) as { summary: { campaign: string } }).summary;
    expect(summary.campaign).toMatch(/^ping-\d{4}-\d\d-\d\d$/);
  });
});

describe('standard input', () => {
  it('two different piped campaigns both send, each with its own report; the same one again is refused', async () => {
    await startSim();
    const csv = (n: number) => `to,text\n${mobile(n)},piped ${n}\n`;
    const args = ['-', '--input-format', 'csv', '--endpoint', sim!.url];
    const first = await cli(args, csv(1));
    const second = await cli(args, csv(2));
    expect([first.code, second.code], first.stderr + second.stderr).toEqual([0, 0]);
    expect(sim!.ledger).toHaveLength(2);
    const reports = (await readdir(dir.path)).filter((f) => f.endsWith('.report.csv')).sort();
    const ids = (await campaigns()).map((c) => c.id.slice(0, 8)).sort();
    expect(reports).toEqual(ids.map((id) => `stdin-${id}.report.csv`));
    const again = await cli(args, csv(1));
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already sent');
    expect(sim!.ledger).toHaveLength(2);
  });
});

describe('a campaign stopped by an unreachable gateway', () => {
  it('exits 3; a re-run names --resume; --resume at a working gateway finishes it once', async () => {
    await writeCampaignCsv(join(dir.path, 'campaign.csv'), 50);
    // Port 1 on loopback: connections are refused, so the circuit breaker opens.
    const unreachable = ['campaign.csv', '--endpoint', 'http://127.0.0.1:1', '--batch-size', '5'];
    // No grace: an unreachable gateway is waited for (probed) 60 s by default.
    const stopped = await cli([...unreachable, '--retries', '0', '--outage-grace', '0']);
    expect(stopped.code, stopped.stderr).toBe(3);
    expect(stopped.stderr).toContain(
      'the gateway could not be used: the gateway was never reached',
    );
    const [state] = await campaigns();
    expect(state).toMatchObject({ status: 'stopped', records: 50 });

    const again = await cli(unreachable);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/was stopped \(.+\) on \d{4}-\d\d-\d\d/);
    expect(again.stderr).toContain('--resume');
    expect(again.stderr).not.toContain('already sent');

    await startSim();
    const resumed = await cli(['campaign.csv', '--endpoint', sim!.url, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sim!.ledger).toHaveLength(50);
    expect(findDuplicates(sim!.ledger)).toEqual([]);
    const [finished] = await campaigns();
    expect(finished).toMatchObject({ id: state!.id, status: 'finished', runs: 2 });
    expect(nonZero(finished!.counts)).toEqual({ accepted: 50 });
  });
});

describe('a gateway that is never reached', () => {
  it('one record is enough: exit 3 with the reason, the record reported failed', async () => {
    await writeCampaignCsv(join(dir.path, 'one.csv'), 1);
    const result = await cli([
      'one.csv',
      '--endpoint',
      'http://127.0.0.1:1',
      '--retries',
      '1',
      '--outage-grace',
      '0',
    ]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/the gateway was never reached: connection refused/);
    const rows = parseCsv(await readFile(join(dir.path, 'one.report.csv'), 'utf8'));
    expect(rows.map((r) => r.outcome)).toEqual(['failed']);
  });
});

describe('sms-send campaigns', () => {
  it('show and prune: a finished campaign is pruned, its report kept; an unknown ID is exit 2', async () => {
    await startSim();
    await writeCampaignCsv(join(dir.path, 'campaign.csv'), 2);
    expect((await cli(['campaign.csv', '--endpoint', sim!.url])).code).toBe(0);
    const [state] = await campaigns();
    const show = await cli(['campaigns', 'show', state!.id.slice(0, 6)]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`campaign  ${state!.id}`);
    expect(show.stdout).toContain('finished');
    expect((await cli(['campaigns', 'show', 'nope'])).code).toBe(2);

    const kept = await cli(['campaigns', 'prune', '--older-than', '90d', '--json']);
    expect(JSON.parse(kept.stdout)).toMatchObject({ removed: [] });
    const pruned = await cli(['campaigns', 'prune', '--older-than', '0s', '--json']);
    expect(JSON.parse(pruned.stdout)).toMatchObject({ removed: [state!.id] });
    expect(await campaigns()).toEqual([]);
    expect(await readdir(dir.path)).toContain('campaign.report.csv');
    expect((await cli(['campaigns', 'prune'])).code).toBe(2);
  });

  it('an unwritable state directory is exit 2 before anything is sent', async () => {
    await startSim();
    await writeCampaignCsv(join(dir.path, 'campaign.csv'), 2);
    // Below a file, so even root cannot create it.
    await writeFile(join(dir.path, 'a-file'), '');
    const stateDir = join(dir.path, 'a-file', 'state');
    const result = await runInProcess(['campaign.csv', '--endpoint', sim!.url], {
      cwd: dir.path,
      env: { ...ENV, SMS_SEND_STATE_DIR: stateDir },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `state directory ${stateDir} cannot be written: not a directory (ENOTDIR)`,
    );
    expect(sim!.ledger).toHaveLength(0);
  });
});
