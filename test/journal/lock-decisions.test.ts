// The lock's decisions in-process: live, dead, foreign and other users' holders, the takeover and its
// back-off, played with an injected liveness check, clock, host and pid instead of real processes.
import { link, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type * as FsPromises from 'node:fs/promises';
import type * as Crypto from 'node:crypto';
import type { LockOptions } from '../../src/journal/lock.js';
import { systemClock } from '../../src/shared/clock.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// A test may run a move of "another run" just before a read or removal of a file, fail a link,
// or fix the random part of the names of the files written aside.
const hooks: {
  beforeRead?: (path: string) => Promise<void>;
  beforeRm?: (path: string) => Promise<void>;
  link?: (from: string, to: string) => void;
  randomHex?: string;
} = {};
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof Crypto>();
  const randomBytes = ((size: number) =>
    hooks.randomHex === undefined
      ? crypto.randomBytes(size)
      : Buffer.from(hooks.randomHex, 'hex')) as typeof crypto.randomBytes;
  return { ...crypto, default: { ...crypto, randomBytes }, randomBytes };
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  const readFile = (async (...args: Parameters<typeof fs.readFile>) => {
    if (typeof args[0] === 'string') await hooks.beforeRead?.(args[0]);
    return fs.readFile(...args);
  }) as typeof fs.readFile;
  const link = (async (from: string, to: string) => {
    hooks.link?.(from, to);
    return fs.link(from, to);
  }) as typeof fs.link;
  const rm = (async (...args: Parameters<typeof fs.rm>) => {
    if (typeof args[0] === 'string') await hooks.beforeRm?.(args[0]);
    return fs.rm(...args);
  }) as typeof fs.rm;
  return { ...fs, default: { ...fs, readFile, link, rm }, readFile, link, rm };
});

const { acquireLock, lockIsHeld, takeoverPath } = await import('../../src/journal/lock.js');
const { LockedError } = await import('../../src/shared/errors.js');

const HOST = 'host-a';
const SELF = 4242;
const LIVE = 101;
const OTHER_USERS = 102;
const DEAD = 103;
const SINCE = '2030-01-02T03:04:05.000Z';

/** The system as this run sees it: which pids live, and what each probe and wait was. */
function world(overrides: LockOptions = {}) {
  const probed: number[] = [];
  const sleeps: number[] = [];
  let tick = 0;
  const options: LockOptions = {
    hostname: () => HOST,
    pid: SELF,
    // Each read of the clock a second later, so every text this run writes is its own.
    clock: {
      now: () => Date.parse(SINCE) + 1000 * tick++,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
      sleepUntil: () => Promise.reject(new Error('a lock waits a while, not until a moment')),
    },
    random: () => 0.5,
    probe: (pid) => {
      probed.push(pid);
      if (pid === LIVE) return;
      const code = pid === OTHER_USERS ? 'EPERM' : 'ESRCH';
      throw Object.assign(new Error(`kill ${code}`), { code });
    },
    ...overrides,
  };
  return { options, probed, sleeps };
}

const lockText = (pid: number, host = HOST, since = 'then') => JSON.stringify({ pid, host, since });

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sms-send-lock-decisions-'));
  path = join(dir, 'campaign.lock');
});
/** The name a file is written aside under (shared/files.ts), its random part fixed by the test. */
function asideName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}-c0ffee00.tmp`);
}

afterEach(async () => {
  delete hooks.beforeRead;
  delete hooks.beforeRm;
  delete hooks.link;
  delete hooks.randomHex;
  await rm(dir, { recursive: true, force: true });
});

describe('lockIsHeld: a running campaign told from a killed one', () => {
  it('is not held when there is no lock, or only a garbled one', async () => {
    const { options } = world();
    expect(await lockIsHeld(path, options)).toBe(false);
    await writeFile(path, '{"pid": 1');
    expect(await lockIsHeld(path, options)).toBe(false);
  });

  it('is held by a live process, and by one of another user (EPERM)', async () => {
    const { options, probed } = world();
    await writeFile(path, lockText(LIVE));
    expect(await lockIsHeld(path, options)).toBe(true);
    await writeFile(path, lockText(OTHER_USERS));
    expect(await lockIsHeld(path, options)).toBe(true);
    expect(probed).toEqual([LIVE, OTHER_USERS]);
  });

  it('is not held when its process is gone, or the probe fails otherwise', async () => {
    const { options } = world();
    await writeFile(path, lockText(DEAD));
    expect(await lockIsHeld(path, options)).toBe(false);
    const odd = world({
      probe: () => {
        throw Object.assign(new Error('odd'), { code: 'EINVAL' });
      },
    });
    await writeFile(path, lockText(LIVE));
    expect(await lockIsHeld(path, odd.options)).toBe(false);
  });

  it('respects a lock from another host without probing (its pid means nothing here)', async () => {
    const { options, probed } = world();
    await writeFile(path, lockText(DEAD, 'host-b'));
    expect(await lockIsHeld(path, options)).toBe(true);
    expect(probed).toEqual([]);
  });

  it("is held under this process's pid only while this process holds that very lock", async () => {
    const { options, probed } = world();
    await writeFile(path, lockText(SELF));
    expect(await lockIsHeld(path, options)).toBe(false);
    const lock = await acquireLock(path, undefined, options);
    const text = await readFile(path, 'utf8');
    expect(await lockIsHeld(path, options)).toBe(true);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
    // The same text put back after the release is a stale lock: this process no longer holds it.
    await writeFile(path, text);
    expect(await lockIsHeld(path, options)).toBe(false);
    expect(probed).toEqual([]);
  });
});

describe('acquireLock', () => {
  it("takes a free lock with this run's pid, host and start, readable by others, and nothing else", async () => {
    const { options, sleeps } = world();
    const lock = await acquireLock(path, 'sending campaign c1', options);
    expect(await readFile(path, 'utf8')).toBe(
      JSON.stringify({ pid: SELF, host: HOST, since: SINCE }),
    );
    expect((await stat(path)).mode & 0o777).toBe(0o644);
    expect(await readdir(dir)).toEqual(['campaign.lock']);
    expect(sleeps).toEqual([]);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it.each([
    ['a live holder', LIVE, HOST],
    ['a live holder of another user (EPERM)', OTHER_USERS, HOST],
    ['a holder on another host, even one whose pid is free here', DEAD, 'host-b'],
  ])('refuses %s, names it, and touches nothing of its lock', async (_, pid, host) => {
    const { options, sleeps } = world();
    const held = lockText(pid, host);
    await writeFile(path, held);
    const refusal = acquireLock(path, 'sending campaign c1', options);
    await expect(refusal).rejects.toBeInstanceOf(LockedError);
    await expect(refusal).rejects.toMatchObject({
      message:
        `another sms-send (pid ${pid} on ${host}, since then) is sending campaign c1; ` +
        `nothing was sent. If no such run exists, delete ${path}.`,
    });
    expect(await readFile(path, 'utf8')).toBe(held);
    expect(await readdir(dir)).toEqual(['campaign.lock']);
    expect(sleeps).toEqual([]);
  });

  it('says what the holder is doing with a report when the caller does not say', async () => {
    const { options } = world();
    await writeFile(path, lockText(LIVE));
    await expect(acquireLock(path, undefined, options)).rejects.toThrow(
      /^another sms-send \(pid 101 on host-a, since then\) is using this report; nothing was sent/,
    );
  });

  it('refuses a second taker in the same process while the first holds the lock', async () => {
    const { options } = world();
    const lock = await acquireLock(path, undefined, options);
    await expect(acquireLock(path, 'sending campaign c1', options)).rejects.toBeInstanceOf(
      LockedError,
    );
    await lock.release();
  });

  it('takes over a dead holder at once, leaving no takeover or aside file', async () => {
    const { options, sleeps } = world();
    await writeFile(path, lockText(DEAD));
    const lock = await acquireLock(path, undefined, options);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: SELF, host: HOST });
    expect(await readdir(dir)).toEqual(['campaign.lock']);
    expect(sleeps).toEqual([]);
    await lock.release();
  });

  it('holds the takeover file as its own while it removes the dead lock, then removes it', async () => {
    const { options } = world();
    const stale = lockText(DEAD);
    await writeFile(path, stale);
    const mutex = takeoverPath(path, stale, 1);
    let reads = 0;
    let during: { held: boolean; text: string } | undefined;
    hooks.beforeRead = async (read) => {
      // The second read of the lock is the takeover's check that it is still the stale one.
      if (read === path && ++reads === 2) {
        during = { held: await lockIsHeld(mutex, options), text: await readFile(mutex, 'utf8') };
      }
    };
    const lock = await acquireLock(path, undefined, options);
    expect(during?.held).toBe(true);
    expect(JSON.parse(during!.text)).toMatchObject({ pid: SELF });
    await lock.release();
    // Once the takeover is over, its text is no longer one this process holds.
    await writeFile(path, during!.text);
    expect(await lockIsHeld(path, options)).toBe(false);
  });

  it('leaves a lock that another run linked after this one judged the old one stale', async () => {
    const { options } = world();
    await writeFile(path, lockText(DEAD));
    const other = lockText(LIVE, HOST, 'now');
    let reads = 0;
    hooks.beforeRead = async (read) => {
      if (read === path && ++reads === 2) await writeFile(path, other);
    };
    await expect(acquireLock(path, undefined, options)).rejects.toThrow(`pid ${LIVE}`);
    expect(await readFile(path, 'utf8')).toBe(other);
    expect(await readdir(dir)).toEqual(['campaign.lock']);
  });

  it('links again when the lock was released between its link and its read', async () => {
    const { options, probed } = world();
    await writeFile(path, lockText(LIVE));
    let reads = 0;
    hooks.beforeRead = async (read) => {
      if (read === path && ++reads === 1) await rm(path);
    };
    const lock = await acquireLock(path, undefined, options);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: SELF });
    expect(probed).toEqual([]);
    await lock.release();
  });

  it('takes the next takeover file past runs killed mid-takeover, and removes them all', async () => {
    const { options, sleeps } = world();
    const stale = lockText(DEAD);
    await writeFile(path, stale);
    // Three runs were killed mid-takeover of this dead lock, each leaving its takeover file.
    for (const g of [1, 2, 3]) {
      await writeFile(takeoverPath(path, stale, g), lockText(DEAD, HOST, `run ${g}`));
    }
    const created: string[] = [];
    hooks.link = (_, to) => void created.push(to);
    const lock = await acquireLock(path, undefined, options);
    expect(created.filter((to) => to.includes('.takeover-'))).toEqual([
      takeoverPath(path, stale, 1),
      takeoverPath(path, stale, 2),
      takeoverPath(path, stale, 3),
      takeoverPath(path, stale, 4),
    ]);
    expect(await readdir(dir)).toEqual(['campaign.lock']);
    expect(sleeps).toEqual([]);
    await lock.release();
  });

  it('takes the next takeover file past one a machine crash left empty, and removes them all', async () => {
    const { options, sleeps } = world();
    const stale = lockText(DEAD);
    await writeFile(path, stale);
    // Linked whole, its text was lost in a crash before the disk had it: the run that made it is gone.
    await writeFile(takeoverPath(path, stale, 1), '');
    const lock = await acquireLock(path, undefined, options);
    expect(await readdir(dir)).toEqual(['campaign.lock']);
    expect(sleeps).toEqual([]);
    await lock.release();
  });

  it('takes over at the twentieth takeover file, and no further', async () => {
    const stale = lockText(DEAD);
    for (const killed of [19, 20]) {
      const { options, sleeps } = world();
      await writeFile(path, stale);
      for (let g = 1; g <= killed; g++) {
        await writeFile(takeoverPath(path, stale, g), lockText(DEAD, HOST, `run ${g}`));
      }
      const attempt = acquireLock(path, undefined, options);
      if (killed === 19) {
        await (await attempt).release();
        expect(await readdir(dir)).toEqual([]);
      } else {
        await expect(attempt).rejects.toThrow(/^could not take the lock/);
        expect(sleeps).toHaveLength(50);
        expect(await readdir(dir)).toHaveLength(21);
        await rm(dir, { recursive: true });
        await mkdir(dir);
      }
    }
  });

  it.each([
    ['a live run', lockText(LIVE, HOST, 'taking')],
    ['a file sms-send did not write', 'garbled'],
  ])(
    'waits while %s holds the takeover, 50 tries with jittered pauses, then gives up naming the files',
    async (_, takeover) => {
      const { options, sleeps } = world({ random: () => 0.5 });
      const stale = lockText(DEAD);
      await writeFile(path, stale);
      await writeFile(takeoverPath(path, stale, 1), takeover);
      const attempt = acquireLock(path, 'sending campaign c1', options);
      await expect(attempt).rejects.toBeInstanceOf(LockedError);
      await expect(attempt).rejects.toMatchObject({
        message:
          `could not take the lock ${path}; nothing was sent. If no sms-send is running, ` +
          `delete ${path} and any campaign.lock.takeover-* files beside it.`,
      });
      expect(sleeps).toEqual(Array.from({ length: 50 }, () => 35));
      expect(await readFile(path, 'utf8')).toBe(stale);
      expect(await readFile(takeoverPath(path, stale, 1), 'utf8')).toBe(takeover);
      expect(await readdir(dir)).toHaveLength(2);
    },
  );

  it('pauses 20 ms at the least and 50 ms at the most between tries', async () => {
    for (const [random, pause] of [
      [0, 20],
      [1, 50],
    ] as const) {
      const { options, sleeps } = world({ random: () => random });
      const stale = lockText(DEAD);
      await writeFile(path, stale);
      await writeFile(takeoverPath(path, stale, 1), lockText(LIVE));
      await expect(acquireLock(path, undefined, options)).rejects.toBeInstanceOf(LockedError);
      expect(new Set(sleeps)).toEqual(new Set([pause]));
    }
  });

  it('passes on a failure to link other than an existing lock, and leaves no aside file', async () => {
    const { options } = world();
    const failure = Object.assign(new Error('cross-device link'), { code: 'EXDEV' });
    hooks.link = () => {
      throw failure;
    };
    // Exit 2, naming the lock and the cause in words: nothing was sent.
    await expect(acquireLock(path, undefined, options)).rejects.toMatchObject({
      exitCode: 2,
      code: 'state-unwritable',
      message: expect.stringContaining(
        `cannot take the lock ${path}: cross-device link (EXDEV)`,
      ) as unknown,
      cause: failure,
    });
    expect(await readdir(dir)).toEqual([]);
  });

  it('passes on a failure to link a takeover file, and leaves the dead lock', async () => {
    const { options } = world();
    const stale = lockText(DEAD);
    await writeFile(path, stale);
    const failure = Object.assign(new Error('read-only'), { code: 'EROFS' });
    hooks.link = (_, to) => {
      if (to.includes('.takeover-')) throw failure;
    };
    await expect(acquireLock(path, undefined, options)).rejects.toBe(failure);
    expect(await readdir(dir)).toEqual(['campaign.lock']);
  });
});

describe('the files of a lock, whoever else touches them', () => {
  it('names a takeover file by the first 12 hex digits of the sha256 of the stale text', () => {
    // Every sms-send version that may meet this lock must reach the same name.
    expect(takeoverPath('/s/lock', 'stale', 3)).toBe('/s/lock.takeover-a03f2386ae06-3');
  });

  it('never writes through a file already at its aside name (a link to another run’s lock)', async () => {
    const { options } = world();
    hooks.randomHex = 'c0ffee00';
    const other = join(dir, 'other.lock');
    const othersText = lockText(LIVE, HOST, 'other run');
    await writeFile(other, othersText);
    await link(other, asideName(path));
    await expect(acquireLock(path, undefined, options)).rejects.toMatchObject({
      cause: { code: 'EEXIST' },
    });
    expect(await readFile(other, 'utf8')).toBe(othersText);
  });

  it('never writes through a file already at the aside name of a takeover file', async () => {
    const { options } = world();
    hooks.randomHex = 'c0ffee00';
    const stale = lockText(DEAD);
    await writeFile(path, stale);
    const other = join(dir, 'other.lock');
    const othersText = lockText(LIVE, HOST, 'other run');
    await writeFile(other, othersText);
    await link(other, asideName(takeoverPath(path, stale, 1)));
    await expect(acquireLock(path, undefined, options)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(other, 'utf8')).toBe(othersText);
    expect(await readFile(path, 'utf8')).toBe(stale);
  });

  it('releases a lock someone already deleted', async () => {
    const { options } = world();
    const lock = await acquireLock(path, undefined, options);
    await rm(path);
    await expect(lock.release()).resolves.toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
  });

  it.each([
    [
      'the aside file of the lock',
      (p: string) =>
        p.startsWith(asideName(path).slice(0, -'c0ffee00.tmp'.length)) && !p.includes('.takeover-'),
    ],
    ['the stale lock, as it is taken over', (p: string) => p === path],
    [
      'a takeover file, as it is cleaned up',
      (p: string) => p.includes('.takeover-') && !p.endsWith('.tmp'),
    ],
    [
      'the aside file of a takeover file',
      (p: string) => /\.takeover-.*\.\d+-[0-9a-f]+\.tmp$/.test(p),
    ],
  ])('takes over all the same when %s is gone by the time it is removed', async (_, target) => {
    const { options, sleeps } = world();
    await writeFile(path, lockText(DEAD));
    const removed: string[] = [];
    hooks.beforeRm = (p) => {
      if (target(p) && removed.length === 0) {
        removed.push(p);
        rmSync(p, { force: true });
      }
      return Promise.resolve();
    };
    const lock = await acquireLock(path, undefined, options);
    expect(removed).toHaveLength(1);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: SELF });
    expect(sleeps).toEqual([]);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes the next takeover file when the one it found taken is gone before it is read', async () => {
    const { options, sleeps } = world();
    const stale = lockText(DEAD);
    await writeFile(path, stale);
    const first = takeoverPath(path, stale, 1);
    await writeFile(first, lockText(LIVE, HOST, 'finishing'));
    hooks.beforeRead = async (read) => {
      if (read === first) await rm(first);
    };
    const created: string[] = [];
    hooks.link = (_, to) => void created.push(to);
    const lock = await acquireLock(path, undefined, options);
    expect(created.filter((to) => to.includes('.takeover-'))).toEqual([
      first,
      takeoverPath(path, stale, 2),
    ]);
    expect(sleeps).toEqual([]);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('by default waits on a timer between tries, for the jittered pause', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      const { options } = world({ random: () => 0 });
      options.clock = { ...options.clock!, sleep: (ms) => systemClock.sleep(ms) };
      const stale = lockText(DEAD);
      await writeFile(path, stale);
      await writeFile(takeoverPath(path, stale, 1), lockText(LIVE, HOST, 'taking'));
      let tries = 0;
      hooks.link = (_, to) => {
        if (to === path) tries++;
      };
      const attempt = acquireLock(path, undefined, options);
      attempt.catch(() => undefined);
      // vi.waitFor would move the fake clock on; turns of the event loop let the file work finish.
      const pending = async (n: number) => {
        const giveUp = Date.now() + 5000;
        while (!(tries === n && vi.getTimerCount() === 1) && Date.now() < giveUp) {
          await new Promise((resolve) => setImmediate(resolve));
        }
        expect([tries, vi.getTimerCount()]).toEqual([n, 1]);
      };
      await pending(1);
      await vi.advanceTimersByTimeAsync(19);
      expect(tries).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      await pending(2);
      for (let n = 3; n <= 50; n++) {
        await vi.advanceTimersByTimeAsync(20);
        await pending(n);
      }
      await vi.advanceTimersByTimeAsync(20);
      await expect(attempt).rejects.toBeInstanceOf(LockedError);
    } finally {
      vi.useRealTimers();
    }
  });
});
