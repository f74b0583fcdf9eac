// kill -9 and --resume with the campaign state in PostgreSQL, at sizes whose journal runs past the
// page the store reads it back in: at batch size 1 (three journal lines a record) and 100. The
// simulator's ledger is the witness: nothing accepted twice, every record reported once.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_PAGE } from '../../src/journal/postgres/sql/journal-page.js';
import { findDuplicates, startSimulator, type Simulator } from '../../src/simulator/index.js';
import { collect, killLeft, startCli } from '../helpers/cli.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { usePostgres } from '../helpers/postgres.js';
import { countOutcomes, promiseBreaches, waitFor } from '../helpers/reliability.js';
import type { ChildProcess } from 'node:child_process';

const server = usePostgres();

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await tempDir();
  sim = await startSimulator({ seed: 5 });
});
afterEach(async () => {
  killLeft(children);
  await sim.stop();
  await dir.remove();
});

const CONCURRENCY = 4;

/** The journal's lines now, counted in the database. */
async function journalLines(stateUrl: string): Promise<number> {
  const [row] = await server.query(stateUrl, 'SELECT count(*)::int AS n FROM sms_send.journal');
  return row!['n'] as number;
}

describe('kill -9 and --resume with the state in PostgreSQL, the journal past a page', () => {
  it.each([
    // The reproduction: 2,500 records one a batch, killed at 2,214 accepted.
    { batch: 1, records: 2500, kills: [900, 2214] },
    { batch: 100, records: 200_000, kills: [120_000, 180_000] },
  ])(
    'batch size $batch, $records records, killed at $kills accepted: nothing twice',
    { timeout: 120_000 },
    async ({ batch, records, kills }) => {
      const stateUrl = await server.database();
      const input = join(dir.path, 'campaign.csv');
      await writeCampaignCsv(input, records);
      const report = join(dir.path, 'campaign.report.csv');
      const args = [
        input,
        ...['--endpoint', sim.url, '--state-url', stateUrl, '--report', report],
        ...['--batch-size', String(batch), '--concurrency', String(CONCURRENCY)],
        ...['--lease', '1s', '--yes', '--quiet'],
      ];
      const env = {
        SMS_SEND_STATE_DIR: join(dir.path, 'state'),
        SMS_SEND_USERNAME: 'u',
        SMS_SEND_PASSWORD: 'p',
      };
      /** The killed run's lease has run out, by the database's clock: another run may take it. */
      const leaseOver = () =>
        waitFor(async () => {
          const [row] = await server.query(
            stateUrl,
            'SELECT bool_and(lease_until IS NULL OR lease_until < now()) AS over FROM sms_send.campaigns',
          );
          return row!['over'] === true;
        }, 'the lease to run out');
      for (const [n, at] of kills.entries()) {
        if (n > 0) await leaseOver();
        const child = startCli(n === 0 ? args : [...args, '--resume'], { cwd: dir.path, env });
        children.push(child);
        const ended = collect(child);
        await waitFor(
          () => sim.ledger.length >= at || child.exitCode !== null,
          `${at} accepted`,
          60_000,
        );
        child.kill('SIGKILL');
        const killed = await ended;
        expect(killed.signal, killed.stderr).toBe('SIGKILL');
      }
      // The kill left the journal past a page: the resume reads it back in pieces.
      expect(await journalLines(stateUrl)).toBeGreaterThan(JOURNAL_PAGE);
      await leaseOver();
      const finished = await collect(startCli([...args, '--resume'], { cwd: dir.path, env }));
      expect([0, 1], finished.stderr).toContain(finished.code);
      expect(findDuplicates(sim.ledger)).toEqual([]);
      const rows = parseCsv(await readFile(report, 'utf8'));
      expect(promiseBreaches(rows, records, sim.ledger)).toEqual([]);
      const counts = countOutcomes(rows);
      expect(Object.keys(counts).filter((o) => o !== 'accepted' && o !== 'unknown')).toEqual([]);
      // Only what was in flight at a kill may be unknown.
      expect(counts.unknown ?? 0).toBeLessThanOrEqual(kills.length * CONCURRENCY * batch);
      expect(sim.ledger.length).toBeLessThanOrEqual(records);
    },
  );
});

describe('Ctrl-C with the state in PostgreSQL, the journal past a page', () => {
  it('batch size 1: exit 130, and the --resume it prints (its state URL masked) finishes, nothing twice', async () => {
    const records = 2500;
    const stateUrl = (await server.database()).replace('postgres@', 'postgres:pg-secret@');
    const input = join(dir.path, 'campaign.csv');
    await writeCampaignCsv(input, records);
    const env = {
      SMS_SEND_STATE_DIR: join(dir.path, 'state'),
      SMS_SEND_USERNAME: 'u',
      SMS_SEND_PASSWORD: 'p',
    };
    const args = [
      input,
      ...['--endpoint', sim.url, '--state-url', stateUrl, '--batch-size', '1'],
      ...['--concurrency', String(CONCURRENCY), '--yes'],
    ];
    const child = startCli(args, { cwd: dir.path, env });
    children.push(child);
    const ended = collect(child);
    await waitFor(() => sim.ledger.length >= 2000 || child.exitCode !== null, '2,000 accepted');
    child.kill('SIGINT');
    const stopped = await ended;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(
      await journalLines(stateUrl.replace('postgres:pg-secret@', 'postgres@')),
    ).toBeGreaterThan(JOURNAL_PAGE);
    expect(stopped.stdout + stopped.stderr).not.toContain('pg-secret');
    const line = /Finish the campaign with:\n {2}(?:npx )?sms-send (.+)\n/.exec(stopped.stderr);
    expect(line, stopped.stderr).not.toBeNull();
    // As printed, the masked password typed in again, as its note says.
    const argv = line![1]!
      .split(' ')
      .map((word) => word.replace(/^'(.*)'$/, '$1').replace('***@', 'postgres:pg-secret@'));
    expect(argv).toContain('--resume');
    const resumed = await collect(startCli(argv, { cwd: dir.path, env }));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(findDuplicates(sim.ledger)).toEqual([]);
    expect(sim.ledger).toHaveLength(records);
    const rows = parseCsv(await readFile(join(dir.path, 'campaign.report.csv'), 'utf8'));
    expect(promiseBreaches(rows, records, sim.ledger)).toEqual([]);
    expect(countOutcomes(rows)).toEqual({ accepted: records });
  }, 60_000);
});
