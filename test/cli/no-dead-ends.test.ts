// Every refusal and stop the send command prints names a command; run in the state that produced
// it (its cause, such as a wrong password or a full disk, put right), that command makes progress:
// it sends, finishes or reports, and never meets the same refusal or one that sends the user back.
// In-process: the real program, its messages as main.ts prints them, an in-test simulator.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { injectDiskFault } from '../../src/shared/disk.js';
import { acquireLock } from '../../src/journal/lock.js';
import { campaignPaths } from '../../src/journal/folder/campaigns.js';
import { findDuplicates, startSimulator, type Simulator } from '../../src/simulator/index.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import type { CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { promiseBreaches } from '../helpers/reliability.js';

/**
 * A full disk under the journal, for the rows that need one: the first write that fails is the
 * batch line after `afterSends`, or with `failDone`, the answer of the batch before it; every
 * write and sync of the journal after it fails too, until the test clears the fault.
 */
const fullDisk = { afterSends: Infinity, sends: 0, failDone: false, full: false };

function fillUp(): void {
  injectDiskFault((op, path, data) => {
    if (!path.endsWith('journal.ndjson')) return undefined;
    if (op === 'write' && typeof data === 'string' && !fullDisk.full) {
      fullDisk.sends += data.split('{"t":"batch"').length - 1;
      const answer = fullDisk.failDone && data.includes('{"t":"result"');
      if (fullDisk.sends > fullDisk.afterSends || (answer && fullDisk.sends >= fullDisk.afterSends))
        fullDisk.full = true;
    }
    if (!fullDisk.full || op === 'open' || op === 'rename' || op === 'link') return undefined;
    const error = Object.assign(new Error(`ENOSPC: no space left on device, ${op}`), {
      code: 'ENOSPC',
    });
    return { error };
  });
}

function emptyDisk(): void {
  Object.assign(fullDisk, { afterSends: Infinity, sends: 0, failDone: false, full: false });
  injectDiskFault(undefined);
}

const RECORDS = 30;
const PASSWORD = 'right-pw';

interface World {
  dir: string;
  state: string;
  input: string;
  report: string;
  sim: Simulator;
  /** The send command line every row starts from. */
  base: string[];
  /** The environment each command line runs with; a row may change it. */
  env: Record<string, string>;
}

let world: World;
let cleanup: (() => Promise<void>)[] = [];

beforeEach(async () => {
  const dir = await tempDir();
  const sim = await startSimulator({
    credentials: { username: 'tester', password: PASSWORD },
    faults: { latencyMs: 5 },
  });
  const input = join(dir.path, 'campaign.csv');
  await writeCampaignCsv(input, RECORDS);
  const report = join(dir.path, 'campaign.report.csv');
  const state = join(dir.path, 'state');
  const env = {
    SMS_SEND_STATE_DIR: state,
    SMS_SEND_USERNAME: 'tester',
    SMS_SEND_PASSWORD: PASSWORD,
  };
  const base = [input, '--endpoint', sim.url, '--report', report, '--batch-size', '5'];
  world = { dir: dir.path, state, input, report, sim, base: [...base, '--concurrency', '1'], env };
  cleanup = [() => sim.stop(), () => dir.remove()];
});

afterEach(async () => {
  vi.useRealTimers();
  emptyDisk();
  for (const step of cleanup.reverse()) await step();
});

/** `sms-send ARGS` in-process, in the world's environment, as run from a clone. */
function run(args: string[]): Promise<CliResult> {
  return runInProcess(args, { env: world.env });
}

/** Runs ARGS until `after(ledger size)` says so, then sends the run the signal Ctrl-C sends. */
async function interruptWhen(args: string[], after: number): Promise<CliResult> {
  const before = new Set(process.listeners('SIGINT'));
  const running = run(args);
  while (world.sim.ledger.length < after) await new Promise((r) => setTimeout(r, 2));
  for (const listener of process.listeners('SIGINT')) {
    if (!before.has(listener)) listener('SIGINT');
  }
  return running;
}

/** The ID of the campaign that was interrupted, as its dry run prints it. */
async function campaignId(): Promise<string> {
  const dry = await run([...world.base, '--dry-run', '--resume']);
  return /campaign (\w+)\n$/.exec(dry.stdout)![1]!;
}

interface Row {
  name: string;
  /** Brings the campaign into the state and returns what the command printed there. */
  produce(): Promise<CliResult>;
  code: number;
  says: string;
  /** Puts the cause right (not the campaign's state) before the named command runs. */
  fix?(): void | Promise<void>;
  /** The command, where the message names it inside a sentence rather than on a line of its own. */
  inline?: RegExp;
}

const ROWS: Row[] = [
  {
    name: 'report exists, no run recorded',
    produce: async () => {
      await writeFile(world.report, '');
      return run(world.base);
    },
    code: 2,
    says: 'already exists, but no run of campaign',
  },
  {
    name: 'nothing to resume, the report exists',
    produce: async () => {
      await writeFile(world.report, '');
      return run([...world.base, '--resume']);
    },
    code: 2,
    says: 'nothing to resume',
  },
  {
    name: 'nothing to resume, no report',
    produce: () => run([...world.base, '--resume']),
    code: 2,
    says: 'nothing to resume',
  },
  {
    name: 'stopped: the gateway refused the credentials',
    produce: () => {
      world.env.SMS_SEND_PASSWORD = 'wrong-pw';
      return run(world.base);
    },
    code: 3,
    says: 'the gateway refused the credentials',
    fix: () => void (world.env.SMS_SEND_PASSWORD = PASSWORD),
  },
  {
    name: 'unfinished: a stopped campaign run again',
    produce: async () => {
      world.env.SMS_SEND_PASSWORD = 'wrong-pw';
      expect((await run(world.base)).code).toBe(3);
      world.env.SMS_SEND_PASSWORD = PASSWORD;
      return run(world.base);
    },
    code: 2,
    says: 'was stopped',
  },
  {
    name: 'interrupted by Ctrl-C',
    produce: () => interruptWhen(world.base, 10),
    code: 130,
    says: 'interrupted: ',
  },
  {
    name: 'unfinished: an interrupted campaign run again',
    produce: async () => {
      expect((await interruptWhen(world.base, 10)).code).toBe(130);
      return run(world.base);
    },
    code: 2,
    says: 'was interrupted',
  },
  {
    name: 'lock held: another run is resuming it',
    produce: async () => {
      expect((await interruptWhen(world.base, 10)).code).toBe(130);
      // The other run is this process (alive), holding the lock as a resume does.
      const lock = await acquireLock(campaignPaths(world.state, await campaignId()).lock);
      cleanup.push(() => lock.release());
      return run([...world.base, '--resume']);
    },
    code: 4,
    says: 'another sms-send',
  },
  {
    name: 'finished: already sent',
    produce: async () => {
      expect((await run(world.base)).code).toBe(0);
      return run(world.base);
    },
    code: 2,
    says: 'was already sent',
  },
  {
    name: 'window closed: the run stopped when it closed',
    produce: async () => {
      // Only the wall clock is faked: the window's close comes on cue, timers stay real.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2026-11-24T20:59:00Z'));
      const windowed = [...world.base, '--window', '09:00-21:00', '--tz', 'UTC'];
      const running = run(windowed);
      while (world.sim.ledger.length < 10) await new Promise((r) => setTimeout(r, 2));
      vi.setSystemTime(new Date('2026-11-24T21:00:30Z'));
      return running;
    },
    code: 5,
    says: 'the send window closed',
    // The next window.
    fix: () => void vi.setSystemTime(new Date('2026-11-25T09:00:30Z')),
  },
  {
    name: 'rejected records: the summary names the follow-up that sends them again',
    produce: () => {
      world.sim.setFaults({ latencyMs: 5, rejectMessage: 0.5 });
      return run(world.base);
    },
    code: 1,
    says: 'send them again as a follow-up campaign with',
    // What rejected them is put right; the command carries the endpoint the campaign went to.
    fix: () => world.sim.setFaults({ latencyMs: 5 }),
    inline: /follow-up campaign with:\n {2}npx sms-send (.+)\n/,
  },
  {
    name: 'follow-up unfinished: the original resumed while its follow-up is interrupted',
    produce: async () => {
      world.sim.setFaults({ latencyMs: 5, rejectMessage: 0.5 });
      expect((await run(world.base)).code).toBe(1);
      const id = /campaign {2}(\w+)/.exec((await run([...world.base, '--resume'])).stdout)![1]!;
      world.sim.setFaults({ latencyMs: 5 });
      // The follow-up finds the gateway in its settings, as a configured user's does.
      world.env.SMS_SEND_ENDPOINT = world.sim.url;
      const retry = ['retry', id, '--batch-size', '2', '--concurrency', '1'];
      expect((await interruptWhen(retry, world.sim.ledger.length + 2)).code).toBe(130);
      return run([...world.base, '--resume']);
    },
    code: 2,
    says: 'that is interrupted: finish it first',
    inline: /\(npx sms-send (retry \S+ --resume)/,
  },
  {
    name: 'state unwritable: the disk filled up mid-send',
    produce: () => {
      fullDisk.afterSends = 2;
      fillUp();
      // No waiting for room to come back: the disk stays full until the test frees it.
      return run([...world.base, '--outage-grace', '0']);
    },
    code: 6,
    // What was settled, and that the rest waits: the two batches recorded, none after them.
    says:
      'campaign state could not be written: no space left on device (ENOSPC): ' +
      '10 records settled and kept, 20 not sent. Once there is room, finish the campaign',
    fix: emptyDisk,
  },
];

/** The command on the line after "… with:", as words (these paths need no quoting). */
function named(stderr: string): string[] {
  // Run from a clone, where the shell does not find sms-send: commands say npx.
  const line = /with:\n {2}npx sms-send (.+)\n/.exec(stderr);
  expect(line, `no command named in:\n${stderr}`).not.toBeNull();
  return line![1]!.split(' ');
}

describe('every refusal and stop leads somewhere that works', () => {
  it.each(ROWS)('$name', async (row) => {
    const first = await row.produce();
    expect(first.code, first.stderr).toBe(row.code);
    expect(first.stderr).toContain(row.says);
    const inline = row.inline?.exec(first.stderr)?.[1]?.split(' ');
    const command = row.inline ? inline! : named(first.stderr);
    expect(command).toBeDefined();
    await row.fix?.();
    const ledger = world.sim.ledger.length;
    const next = await run(command);
    // Progress: it sent, finished the campaign, or reported on it; never a refusal (2, 4) again.
    expect([0, 1], `${command.join(' ')}\n${next.stderr}`).toContain(next.code);
    expect(next.stderr).not.toContain(row.says);
    const sent = world.sim.ledger.length > ledger;
    const reported = next.stdout.length > 0;
    expect(sent || reported).toBe(true);
    expect(findDuplicates(world.sim.ledger)).toEqual([]);
    // A follow-up writes a report of its own; the others finish the campaign's.
    if (sent && !row.inline) {
      const rows = parseCsv(await readFile(world.report, 'utf8'));
      expect(promiseBreaches(rows, RECORDS, world.sim.ledger)).toEqual([]);
    }
  });
});

describe('--dry-run --resume counts what the resume then sends', () => {
  it.each([
    { state: 'interrupted by Ctrl-C', flags: [] as string[] },
    { state: 'stopped with a batch sent but its answer not recorded', flags: [] },
    { state: 'stopped with a batch sent but its answer not recorded', flags: ['--retry-unknown'] },
  ])('$state $flags', async ({ state, flags }) => {
    if (state.startsWith('interrupted')) {
      expect((await interruptWhen(world.base, 10)).code).toBe(130);
    } else {
      Object.assign(fullDisk, { afterSends: 2, failDone: true });
      fillUp();
      expect((await run([...world.base, '--outage-grace', '0'])).code).toBe(6);
      emptyDisk();
    }
    const resume = [...world.base, '--resume', ...flags];
    const dry = await run([...resume, '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    const left = (JSON.parse(dry.stdout) as { plan: { leftToSend: number } }).plan.leftToSend;
    const text = await run([...resume, '--dry-run']);
    expect(text.stdout).toMatch(
      new RegExp(`to send +${left} of \\d+ \\(--resume: the rest were settled`),
    );
    const before = world.sim.ledger.length;
    const resumed = await run(resume);
    expect([0, 1], resumed.stderr).toContain(resumed.code);
    expect(world.sim.ledger.length - before).toBe(left);
    // The answer the journal lost is taken from the report: even --retry-unknown sends nothing twice.
    expect(findDuplicates(world.sim.ledger)).toEqual([]);
  });
});
