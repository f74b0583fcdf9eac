// A state directory on a read-only file system (a real read-only tmpfs this test mounts, root
// only): the run and its dry run alike refuse with exit 2, naming EROFS, and nothing is sent.
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;
/** A read-only mount holding an existing state directory, and one with nothing in it yet. */
let filled: string;
let empty: string;
let cannot: string | undefined;

function mount(at: string, ...options: string[]): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', ['size=1m', ...options].join(','), 'tmpfs', at], {
    stdio: 'pipe',
  });
}

beforeAll(async () => {
  dir = await tempDir();
  sim = await startSimulator();
  await writeCampaignCsv(join(dir.path, 'c.csv'), 4);
  filled = join(dir.path, 'filled');
  empty = join(dir.path, 'empty');
  await mkdir(filled);
  await mkdir(empty);
  try {
    mount(filled);
    await mkdir(join(filled, 'state', 'campaigns'), { recursive: true });
    execFileSync('mount', ['-o', 'remount,ro', filled], { stdio: 'pipe' });
    mount(empty, 'ro');
  } catch (error) {
    cannot = `cannot mount a read-only tmpfs (${String((error as Error).message).split('\n')[0]}); run as root for this test`;
  }
});

afterAll(async () => {
  await sim.stop();
  for (const at of [filled, empty]) execFileSync('umount', [at], { stdio: 'ignore' });
  await dir.remove();
});

describe('a state directory that cannot be written', () => {
  it.each([
    ['that exists', () => join(filled, 'state')],
    ['that would have to be made', () => join(empty, 'state')],
  ])('%s: the run and its dry run refuse alike, naming EROFS', async (_name, stateDir) => {
    expect(cannot).toBeUndefined();
    const args = ['c.csv', '--endpoint', sim.url, '--yes', '--report', 'r.csv'];
    const env = { SMS_SEND_STATE_DIR: stateDir(), SMS_SEND_USERNAME: 'u', SMS_SEND_PASSWORD: 'p' };
    const says = `the state directory ${stateDir()} cannot be written: read-only file system (EROFS)`;
    for (const extra of [['--dry-run'], []]) {
      const run = await runInProcess([...args, ...extra], { cwd: dir.path, env });
      expect(run.code, extra.join(' ')).toBe(2);
      expect(run.stderr).toContain(says);
    }
    expect(sim.ledger).toHaveLength(0);
  });
});
