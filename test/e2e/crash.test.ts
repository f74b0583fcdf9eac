// The built CLI killed and interrupted mid-run against an in-test simulator: kill -9 and resume,
// Ctrl-C (once and twice), and a second run on a locked campaign. The simulator's ledger is the
// witness: nothing accepted twice, nothing lost. Requires `npm run build`.
import { access, mkdir, readFile, symlink } from 'node:fs/promises';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readJournalFile } from '../../src/journal/reading.js';
import { lockPath, takeoverPath } from '../../src/journal/lock.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { BIN, runCli, startCli, type CliResult, killLeft } from '../helpers/cli.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import {
  countOutcomes,
  journalCounts,
  promiseBreaches,
  stateJournal,
  waitFor,
} from '../helpers/reliability.js';

const ENV = { SMS_SEND_USERNAME: 'crash-user', SMS_SEND_PASSWORD: 'crash-pw' };
/** Lets a child process run TypeScript from src/ (never a stale dist/). */
const TS_LOADER = new URL('../helpers/ts-loader.js', import.meta.url).href;
const LOCK_TAKER = fileURLToPath(new URL('../helpers/lock-taker.ts', import.meta.url));

/**
 * What one test owns: a folder (its campaigns, reports and campaign state), the children and
 * simulators it started. The tests run concurrently, so nothing of this is shared.
 */
interface Ctx {
  dir: string;
  state: string;
  env: Record<string, string | undefined>;
  children: ChildProcess[];
  sims: Simulator[];
}

async function context(onTestFinished: (fn: () => Promise<void>) => void): Promise<Ctx> {
  const dir = await tempDir();
  const state = join(dir.path, 'state');
  const ctx: Ctx = {
    dir: dir.path,
    state,
    env: { ...ENV, SMS_SEND_STATE_DIR: state },
    children: [],
    sims: [],
  };
  onTestFinished(async () => {
    killLeft(ctx.children);
    await Promise.all(ctx.sims.map((sim) => sim.stop()));
    await dir.remove();
  });
  return ctx;
}

async function startSim(ctx: Ctx, latencyMs: number): Promise<Simulator> {
  const sim = await startSimulator({
    credentials: { username: ENV.SMS_SEND_USERNAME, password: ENV.SMS_SEND_PASSWORD },
    faults: { latencyMs },
  });
  ctx.sims.push(sim);
  return sim;
}

interface Running {
  child: ChildProcess;
  stderr(): string;
  done: Promise<CliResult>;
}

/** Spawns the CLI and keeps its output readable while it runs. */
function start(ctx: Ctx, args: string[]): Running {
  const child = startCli(args, { cwd: ctx.dir, env: ctx.env });
  ctx.children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, stderr: () => stderr, done };
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/**
 * Waits until the campaign's journal (in the test's state directory) shows `ready`, failing at
 * once (with stderr) if the run ended first.
 */
async function waitForJournal(
  ctx: Ctx,
  run: Running,
  ready: (counts: { send: number; done: number }) => boolean,
  what: string,
): Promise<void> {
  await waitFor(async () => {
    if (exited(run.child)) {
      throw new Error(`the run ended before ${what}: ${run.stderr()}`);
    }
    return ready(await journalCounts(stateJournal(ctx.state)));
  }, what);
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

async function campaign(ctx: Ctx, count: number): Promise<{ input: string; report: string }> {
  const input = join(ctx.dir, 'campaign.csv');
  await writeCampaignCsv(input, count);
  const report = join(ctx.dir, 'campaign.report.csv');
  return { input, report };
}

describe.concurrent('kill -9 mid-run, then --resume', { timeout: 120_000 }, () => {
  it('twice, at different moments: no record lost, none accepted twice, the stale lock taken over', async ({
    onTestFinished,
  }) => {
    const ctx = await context(onTestFinished);
    const RECORDS = 3000;
    const BATCH = 25;
    const CONCURRENCY = 2;
    const sim = await startSim(ctx, 60);
    const { input, report } = await campaign(ctx, RECORDS);
    const args = [
      input,
      '--endpoint',
      sim.url,
      '--yes',
      '--quiet',
      '--report',
      report,
      '--batch-size',
      String(BATCH),
      '--concurrency',
      String(CONCURRENCY),
    ];

    // First kill: early, a few batches answered and others in flight.
    const first = start(ctx, args);
    await waitForJournal(ctx, first, (c) => c.done >= 3, 'three answered batches');
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    const lock = JSON.parse(await readFile(lockPath(report), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(first.child.pid); // left behind by the dead run
    const afterFirst = await journalCounts(stateJournal(ctx.state));

    // Second kill: the resumed run, well into its own sending.
    const second = start(ctx, [...args, '--resume']);
    await waitForJournal(
      ctx,
      second,
      (c) => c.done >= afterFirst.done + 20,
      'twenty more answered batches',
    );
    second.child.kill('SIGKILL');
    expect((await second.done).signal).toBe('SIGKILL');

    // The last run finishes the campaign; the simulator no longer needs to be slow.
    sim.setFaults({});
    const third = await runCli([...args, '--resume'], { cwd: ctx.dir, env: ctx.env });
    expect(third.stderr).not.toContain('another sms-send');

    const rows = parseCsv(await readFile(report, 'utf8'));
    expect(promiseBreaches(rows, RECORDS, sim.ledger)).toEqual([]);
    const counts = countOutcomes(rows);
    // Only batches in flight at a kill (at most one per worker) can be unknown; nothing else is lost.
    expect(Object.keys(counts).filter((o) => o !== 'accepted' && o !== 'unknown')).toEqual([]);
    const unknown = counts.unknown ?? 0;
    expect(unknown).toBeLessThanOrEqual(2 * CONCURRENCY * BATCH);
    expect(third.code).toBe(unknown > 0 ? 1 : 0);
    // The unknown rows are exactly those the journal saw sent without an answer.
    const state = await readJournalFile(stateJournal(ctx.state));
    expect(state?.runs).toBe(3);
    expect(
      rows
        .filter((r) => r.outcome === 'unknown')
        .map((r) => Number(r.row))
        .sort((a, b) => a - b),
    ).toEqual([...state!.inFlight.keys()].sort((a, b) => a - b));
    // Every record reached the gateway at most once; the accepted ones exactly once.
    expect(sim.ledger.length).toBeGreaterThanOrEqual(counts.accepted ?? 0);
    expect(sim.ledger.length).toBeLessThanOrEqual(RECORDS);
    expect(await exists(lockPath(report))).toBe(false);
    expect(await exists(join(dirname(stateJournal(ctx.state)), 'spool'))).toBe(false);
    expect(await exists(join(dirname(stateJournal(ctx.state)), 'lock'))).toBe(false);
  });
});

describe.concurrent('Ctrl-C', { timeout: 120_000 }, () => {
  it('once: in-flight batches finish, exit 130, report flushed, and the printed --resume finishes the job', async ({
    onTestFinished,
  }) => {
    const ctx = await context(onTestFinished);
    // Installed as a user installs it: the shell finds sms-send on PATH, so the printed command
    // names it bare (from a clone it would say npx sms-send).
    const bin = join(ctx.dir, 'bin');
    await mkdir(bin);
    await symlink(BIN, join(bin, 'sms-send'));
    ctx.env.PATH = `${bin}${delimiter}${process.env.PATH ?? ''}`;
    // Not run by npx, whatever ran the tests (npx vitest passes it on).
    ctx.env.npm_command = undefined;
    const RECORDS = 2000;
    const sim = await startSim(ctx, 60);
    const { input, report } = await campaign(ctx, RECORDS);
    const run = start(ctx, [
      input,
      '--endpoint',
      sim.url,
      '--yes',
      '--report',
      report,
      '--batch-size',
      '20',
      '--concurrency',
      '2',
    ]);
    await waitForJournal(ctx, run, (c) => c.done >= 4, 'four answered batches');
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('stopping: finishing the batches in flight');
    const notSent = /interrupted: ([\d,]+) records not sent/.exec(result.stderr);
    expect(notSent, result.stderr).not.toBeNull();
    const resumeLine = /Finish the campaign with:\n {2}sms-send (.+)\n/.exec(result.stderr);
    expect(resumeLine, result.stderr).not.toBeNull();
    expect(resumeLine![1]).toContain('--resume');

    const rows = parseCsv(await readFile(report, 'utf8'));
    expect(promiseBreaches(rows, RECORDS, sim.ledger)).toEqual([]);
    const counts = countOutcomes(rows);
    expect(Object.keys(counts).sort()).toEqual(['accepted', 'skipped']);
    // In-flight batches were allowed to finish: what the gateway took is reported accepted.
    expect(counts.accepted).toBe(sim.ledger.length);
    expect(counts.skipped).toBe(Number(notSent![1]!.replace(/,/g, '')));
    expect(await exists(lockPath(report))).toBe(false);

    // The command it printed, run as printed (these paths need no shell quoting).
    sim.setFaults({});
    const resumed = await runCli(resumeLine![1]!.split(' '), { cwd: ctx.dir, env: ctx.env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const final = parseCsv(await readFile(report, 'utf8'));
    expect(promiseBreaches(final, RECORDS, sim.ledger)).toEqual([]);
    expect(countOutcomes(final)).toEqual({ accepted: RECORDS });
    expect(sim.ledger).toHaveLength(RECORDS);
  });

  // The reproduction: Ctrl-C said "21,558 records not sent" while 400 more had failed,
  // and the resume then offered 21,958.
  it('once, with failed batches: the stop counts what --resume sends, and the resume sends that', async ({
    onTestFinished,
  }) => {
    const ctx = await context(onTestFinished);
    const RECORDS = 1000;
    // Seeded, one request at a time: the same batches fail every run, never five in a row.
    const sim = await startSimulator({
      seed: 11,
      credentials: { username: ENV.SMS_SEND_USERNAME, password: ENV.SMS_SEND_PASSWORD },
      faults: { latencyMs: 60, processResultFalse: 0.3 },
    });
    ctx.sims.push(sim);
    const { input, report } = await campaign(ctx, RECORDS);
    const args = [input, '--endpoint', sim.url, '--yes', '--report', report, '--batch-size', '20'];
    const run = start(ctx, [
      ...args,
      '--concurrency',
      '1',
      '--retries',
      '0',
      '--outage-grace',
      '1h',
    ]);
    await waitForJournal(ctx, run, (c) => c.done >= 6, 'six answered batches');
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(130);
    const said =
      /interrupted: ([\d,]+) records not sent and ([\d,]+) failed; --resume sends these ([\d,]+)/.exec(
        result.stderr,
      );
    expect(said, result.stderr).not.toBeNull();
    const [notSent, failed, offered] = said!.slice(1).map((n) => Number(n.replace(/,/g, '')));
    const counts = countOutcomes(parseCsv(await readFile(report, 'utf8')));
    expect(counts.failed).toBe(failed);
    expect(counts.skipped).toBe(notSent);
    expect(offered).toBe(notSent! + failed!);

    sim.setFaults({});
    const before = sim.ledger.length;
    const resumed = await runCli([...args, '--resume'], { cwd: ctx.dir, env: ctx.env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sim.ledger.length - before).toBe(offered);
  });

  it('twice: requests in flight are abandoned as unknown at once, exit 130, and resume does not resend them', async ({
    onTestFinished,
  }) => {
    const ctx = await context(onTestFinished);
    const RECORDS = 200;
    const BATCH = 20;
    const sim = await startSim(ctx, 60_000); // processed at once, answered after a minute: only abandoning ends it
    const { input, report } = await campaign(ctx, RECORDS);
    const args = [
      input,
      '--endpoint',
      sim.url,
      '--yes',
      '--report',
      report,
      '--batch-size',
      String(BATCH),
      '--concurrency',
      '2',
    ];
    const run = start(ctx, args);
    await waitForJournal(ctx, run, (c) => c.send >= 2, 'two batches in flight');
    await waitFor(
      () => sim.requests.length >= 2 && sim.ledger.length >= 2 * BATCH,
      'two requests processed',
    );
    run.child.kill('SIGINT');
    // Signals of one kind do not queue: the second must come after the first was handled.
    await waitFor(() => run.stderr().includes('stopping:'), 'the first Ctrl-C noted');
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('abandoning the batches in flight');
    expect(result.stderr).toContain('--resume');

    const rows = parseCsv(await readFile(report, 'utf8'));
    expect(promiseBreaches(rows, RECORDS, sim.ledger)).toEqual([]);
    expect(countOutcomes(rows)).toEqual({ unknown: 2 * BATCH, skipped: RECORDS - 2 * BATCH });

    sim.setFaults({});
    const resumed = await runCli([...args, '--resume'], { cwd: ctx.dir, env: ctx.env });
    expect(resumed.code, resumed.stderr).toBe(1); // the unknown ones stay unknown
    const final = parseCsv(await readFile(report, 'utf8'));
    expect(promiseBreaches(final, RECORDS, sim.ledger)).toEqual([]);
    expect(countOutcomes(final)).toEqual({ unknown: 2 * BATCH, accepted: RECORDS - 2 * BATCH });
    expect(sim.ledger).toHaveLength(RECORDS); // the abandoned ones had reached it: not sent again
  });
});

describe.concurrent('the campaign lock', { timeout: 120_000 }, () => {
  it('a second run while the first is sending exits 4, names the lock and sends nothing', async ({
    onTestFinished,
  }) => {
    const ctx = await context(onTestFinished);
    const RECORDS = 600;
    const BATCH = 10;
    // Slow enough that the first run is still sending whatever the others take to start (up to
    // 15 s); it is sped up once they have been refused.
    const sim = await startSim(ctx, 250);
    const { input, report } = await campaign(ctx, RECORDS);
    const args = [
      input,
      '--endpoint',
      sim.url,
      '--yes',
      '--report',
      report,
      '--batch-size',
      String(BATCH),
      '--concurrency',
      '1',
    ];
    const first = start(ctx, args);
    await waitForJournal(ctx, first, (c) => c.done >= 2, 'the first run sending');
    const reportBefore = await readFile(report, 'utf8');

    // The same cron line again, and the ways a hurried operator might force it, also under
    // another report name: the campaign is what is sent, not where its report goes.
    const others = await Promise.all(
      [[], ['--force'], ['--resume'], ['--report', 'elsewhere.csv']].map((extra) =>
        runCli([...args, ...extra], { cwd: ctx.dir, env: ctx.env }),
      ),
    );
    expect(exited(first.child)).toBe(false); // the first was sending all along
    for (const other of others) {
      expect(other.code, other.stderr).toBe(4);
      expect(other.stderr).toContain(join(dirname(stateJournal(ctx.state)), 'lock'));
      expect(other.stderr).toContain(`pid ${first.child.pid}`);
      expect(other.stderr).toContain('nothing was sent');
    }
    expect(await exists(join(ctx.dir, 'elsewhere.csv'))).toBe(false);
    // Their refusal touched nothing of the first run's.
    expect((await readFile(report, 'utf8')).startsWith(reportBefore)).toBe(true);
    expect(JSON.parse(await readFile(lockPath(report), 'utf8'))).toMatchObject({
      pid: first.child.pid,
    });

    sim.setFaults({});
    const result = await first.done;
    expect(result.code, result.stderr).toBe(0);
    const rows = parseCsv(await readFile(report, 'utf8'));
    expect(promiseBreaches(rows, RECORDS, sim.ledger)).toEqual([]);
    expect(countOutcomes(rows)).toEqual({ accepted: RECORDS });
    // Every request came from the first run: one per batch, nothing from the others.
    expect(sim.requests).toHaveLength(RECORDS / BATCH);
    expect(sim.ledger).toHaveLength(RECORDS);
    expect(await exists(lockPath(report))).toBe(false);
  });

  it('two runs that find the same stale lock at the same moment: at most one takes it over', async ({
    onTestFinished,
  }) => {
    const ctx = await context(onTestFinished);
    // After a crash, cron and an operator (or two cron lines) may start `--resume` together. Both
    // find the dead run's lock; if both take it, both send the rest of the campaign. Each trial
    // has its own stale lock, and two processes (test/helpers/lock-taker.ts, running the lock
    // module from src/) go for it together: each says it is ready, and both are released at once.
    const TRIALS = 60;
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const stale = JSON.stringify({ pid: dead, host: hostname(), since: new Date().toISOString() });
    for (let k = 0; k < TRIALS; k++) {
      await writeFile(join(ctx.dir, `t${k}.lock`), stale);
      // Every other trial, a run was also killed in the middle of taking this dead lock over.
      if (k % 2 === 1) await writeFile(takeoverPath(join(ctx.dir, `t${k}.lock`), stale, 1), stale);
    }
    const takers = [0, 1].map(() => {
      const child = spawn(
        process.execPath,
        ['--import', TS_LOADER, LOCK_TAKER, ctx.dir, String(TRIALS)],
        { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
      );
      ctx.children.push(child);
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      return { child, stderr: () => stderr, closed };
    });
    const ready = new Map<number, number>();
    const taken: (string | undefined)[] = [undefined, undefined];
    await new Promise<void>((resolve, reject) => {
      takers.forEach(({ child, stderr }, i) => {
        child.on('error', reject);
        child.on('exit', (code) => {
          if (taken[i] === undefined) reject(new Error(`taker ${i} exited ${code}: ${stderr()}`));
        });
        child.on('message', (message: { ready?: number; taken?: string }) => {
          if (message.ready !== undefined) {
            const k = message.ready;
            ready.set(k, (ready.get(k) ?? 0) + 1);
            // Both are at the line: release them together, each hearing first in turn.
            if (ready.get(k) === 2) {
              for (const j of k % 2 === 0 ? [0, 1] : [1, 0]) takers[j]!.child.send({ go: k });
            }
          } else if (message.taken !== undefined) {
            taken[i] = message.taken;
            if (taken.every((t) => t !== undefined)) resolve();
          }
        });
      });
    });
    // Both are done and still alive, holding what they took: now they may go.
    for (const { child } of takers) child.send({ exit: true });
    expect(await Promise.all(takers.map((t) => t.closed))).toEqual([0, 0]);

    expect(taken.map((t) => t!.length)).toEqual([TRIALS, TRIALS]);
    const bothTook = Array.from({ length: TRIALS }, (_, k) => k).filter(
      (k) => taken[0]![k] === '1' && taken[1]![k] === '1',
    );
    expect(taken.join('')).toContain('1'); // stale locks are taken over at all
    // Also past a takeover file left by a killed run: no trial ends with the lock untaken.
    expect(
      Array.from({ length: TRIALS }, (_, k) => k).filter(
        (k) => taken[0]![k] === '0' && taken[1]![k] === '0',
      ),
    ).toEqual([]);
    // Takeover is serialised by an exclusive takeover file, and only the lock judged stale is
    // removed, so a lock the other process has just linked into place survives.
    expect(bothTook).toEqual([]);
  });
});
