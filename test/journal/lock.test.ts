// The lock's stale takeover, with the other process's steps placed exactly between this one's.
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import * as realFs from 'node:fs/promises';
import type * as FsPromises from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Each read of the watched lock runs the other process's move queued for it, before or after.
interface Step {
  before?: () => Promise<void>;
  after?: () => Promise<void>;
}
const steps: Step[] = [];
let watched = '';
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  const readFile = (async (...args: Parameters<typeof fs.readFile>) => {
    const step = args[0] === watched ? steps.shift() : undefined;
    await step?.before?.();
    try {
      return await fs.readFile(...args);
    } finally {
      await step?.after?.();
    }
  }) as typeof fs.readFile;
  return { ...fs, default: { ...fs, readFile }, readFile };
});

const { acquireLock, processStart, takeoverPath } = await import('../../src/journal/lock.js');

let dir: string;
beforeEach(async () => {
  dir = await realFs.mkdtemp(join(tmpdir(), 'sms-send-lock-'));
});
afterEach(async () => {
  steps.length = 0;
  watched = '';
  await realFs.rm(dir, { recursive: true, force: true });
});

describe('taking over a stale lock', () => {
  it('never removes the lock another run linked while this one judged the old lock stale', async () => {
    const path = join(dir, 'campaign.lock');
    watched = path;
    // A pid that was just used and is now free; the child runs nothing of sms-send's.
    const dead = spawnSync(process.execPath, ['-e', '0'], {
      env: { ...process.env, SMS_SEND_STATE_DIR: dir },
    }).pid;
    await realFs.writeFile(path, JSON.stringify({ pid: dead, host: hostname(), since: 'then' }));
    // The other run is alive (the test runner's process) and has the same dead lock in view.
    const other = JSON.stringify({ pid: process.ppid, host: hostname(), since: 'now' });
    const otherAside = join(dir, 'other.aside');
    await realFs.writeFile(otherAside, other);
    let otherTook = false;
    const otherLinks = async () => {
      try {
        await realFs.link(otherAside, path);
        otherTook = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    };
    // Just before this run's first read of the lock, the other run removes the dead lock (its
    // own takeover); just after this run's next read, it links its own lock into place.
    steps.push({ before: () => realFs.rm(path) }, { after: otherLinks });

    let thisTook = false;
    try {
      const lock = await acquireLock(path);
      thisTook = true;
      await lock.release();
    } catch (error) {
      expect((error as Error).message).toContain(`pid ${process.ppid}`);
    }
    // The other run's first move came where it was placed (the lock module reads through the mock).
    expect(steps.length).toBeLessThan(2);
    if (!otherTook && !thisTook) await otherLinks();

    expect([thisTook, otherTook].filter(Boolean)).toHaveLength(1);
    if (otherTook) expect(await realFs.readFile(path, 'utf8')).toBe(other);
  });

  it('takes over a garbled lock (its owner died while writing it) and leaves no takeover file', async () => {
    const path = join(dir, 'report.csv.lock');
    await realFs.writeFile(path, '{"pid": 12');
    const lock = await acquireLock(path);
    expect(JSON.parse(await realFs.readFile(path, 'utf8'))).toMatchObject({ pid: process.pid });
    expect((await realFs.readdir(dir)).sort()).toEqual(['report.csv.lock']);
    await lock.release();
    expect(await realFs.readdir(dir)).toEqual([]);
  });

  it('refuses a live holder and names it, touching nothing of its lock', async () => {
    const path = join(dir, 'report.csv.lock');
    // The test runner's own process: alive, and not this one.
    const live = JSON.stringify({ pid: process.ppid, host: hostname(), since: 'now' });
    await realFs.writeFile(path, live);
    await expect(acquireLock(path, 'sending campaign c1')).rejects.toThrow(
      `another sms-send (pid ${process.ppid} on ${hostname()}, since now) is sending campaign c1`,
    );
    expect(await realFs.readFile(path, 'utf8')).toBe(live);
    expect(await realFs.readdir(dir)).toEqual(['report.csv.lock']);
  });

  it("takes over a lock whose owner's pid a live process of another start has now (a pid reused)", async () => {
    const path = join(dir, 'campaign.lock');
    // A live process on this host: the owner's pid, as the system gave it to another process.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    try {
      const pid = other.pid!;
      const started = processStart(pid);
      expect(started).toMatch(/^\d+$/);
      const own = JSON.stringify({ pid, host: hostname(), since: 'now', started });
      await realFs.writeFile(path, own);
      await expect(acquireLock(path, 'sending campaign c1')).rejects.toThrow(
        `another sms-send (pid ${pid} on ${hostname()}, since now) is sending campaign c1`,
      );
      const reused = JSON.stringify({ pid, host: hostname(), since: 'then', started: '1' });
      await realFs.writeFile(path, reused);
      const lock = await acquireLock(path, 'sending campaign c1');
      const taken = JSON.parse(await realFs.readFile(path, 'utf8')) as Record<string, unknown>;
      expect(taken).toMatchObject({ pid: process.pid, started: processStart(process.pid) });
      await lock.release();
    } finally {
      other.kill();
    }
  });

  it('takes over past the takeover file of a run killed mid-takeover, and leaves none behind', async () => {
    const path = join(dir, 'campaign.lock');
    const dead = spawnSync(process.execPath, ['-e', '0'], {
      env: { ...process.env, SMS_SEND_STATE_DIR: dir },
    }).pid;
    const stale = JSON.stringify({ pid: dead, host: hostname(), since: 'then' });
    await realFs.writeFile(path, stale);
    await realFs.writeFile(takeoverPath(path, stale, 1), stale);
    const lock = await acquireLock(path);
    expect(JSON.parse(await realFs.readFile(path, 'utf8'))).toMatchObject({ pid: process.pid });
    expect(await realFs.readdir(dir)).toEqual(['campaign.lock']);
    await lock.release();
  });

  it("takes over a lock with this process's pid that it does not hold (a killed run's, in a container)", async () => {
    const path = join(dir, 'campaign.lock');
    const earlier = JSON.stringify({ pid: process.pid, host: hostname(), since: 'earlier' });
    await realFs.writeFile(path, earlier);
    // The killed run's aside file: a link to its lock, which must not be written through.
    await realFs.link(path, `${path}.${process.pid}`);
    const lock = await acquireLock(path);
    const now = await realFs.readFile(path, 'utf8');
    expect(now).not.toBe(earlier);
    expect(JSON.parse(now)).toMatchObject({ pid: process.pid });
    expect(await realFs.readFile(`${path}.${process.pid}`, 'utf8')).toBe(earlier);
    // While this process holds it, it is held: a second taker in the same process is refused.
    await expect(acquireLock(path, 'sending campaign c1')).rejects.toThrow(
      `another sms-send (pid ${process.pid} on ${hostname()}`,
    );
    await lock.release();
    await realFs.rm(`${path}.${process.pid}`);
    expect(await realFs.readdir(dir)).toEqual([]);
  });
});
