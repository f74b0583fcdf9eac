// One run at a time: a lock file (a campaign's, or a report's), taken over only when its owner is dead.
import { hostname } from 'node:os';
import { link, rm, stat, writeFile } from 'node:fs/promises';
import { LockedError } from '../errors.js';
import { readIfExists } from '../shared/files.js';

interface LockInfo {
  pid: number;
  host: string;
  since: string;
}

/** The report's own lock, `<report>.lock`: one writer of a report file at a time (a send or a dlr fold). */
export function lockPath(reportPath: string): string {
  return `${reportPath}.lock`;
}

/** Whether a live process holds the lock at `path`. */
export async function lockIsHeld(path: string): Promise<boolean> {
  const holder = await readLock(path);
  return holder !== undefined && isAlive(holder);
}

export interface Lock {
  release(): Promise<void>;
}

/** `what` completes "another sms-send is …" in the refusal, e.g. "sending this campaign". */
export async function acquireLock(path: string, what = 'using this report'): Promise<Lock> {
  const info: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const aside = `${path}.${process.pid}`;
  // Written aside, then linked into place: the lock never exists without its owner's name in it.
  await writeFile(aside, JSON.stringify(info), { mode: 0o644 });
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await link(aside, path);
        return { release: () => rm(path, { force: true }) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const seen = await readIfExists(path);
      // Released between our link and this read: link again, never "take over" nothing (another
      // run may link its lock in that moment, and removing it would let both run).
      if (seen === undefined) continue;
      const holder = parseLock(seen);
      if (holder && isAlive(holder)) throw lockedBy(holder, path, what);
      // The owner is gone: take over, but one process at a time, or two could each remove the
      // lock the other just took.
      if (await takeOver(path, seen)) continue;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
    }
    throw new LockedError(`could not take the lock ${path}; nothing was sent`);
  } finally {
    await rm(aside, { force: true });
  }
}

/** Removes a dead owner's lock under an exclusive takeover file; false when another run is at it. */
async function takeOver(path: string, stale: string): Promise<boolean> {
  const mutex = `${path}.takeover`;
  try {
    await writeFile(mutex, String(process.pid), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // A takeover file left by a process killed mid-takeover would block everyone forever.
    const age = Date.now() - (await stat(mutex).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
    if (age > 10_000) await rm(mutex, { force: true });
    return false;
  }
  try {
    // Only the very lock we judged stale may go, byte for byte (each holds its owner's pid, host
    // and start): one linked meanwhile by another run stays, and a lock already gone needs no
    // removing. Every other removal of a stale lock happens under this same takeover file.
    if ((await readIfExists(path)) === stale) await rm(path, { force: true });
    return true;
  } finally {
    await rm(mutex, { force: true });
  }
}

function lockedBy(holder: LockInfo, path: string, what: string): LockedError {
  return new LockedError(
    `another sms-send (pid ${holder.pid} on ${holder.host}, since ${holder.since}) is ${what}; ` +
      `nothing was sent. If no such run exists, delete ${path}.`,
  );
}

async function readLock(path: string): Promise<LockInfo | undefined> {
  const raw = await readIfExists(path);
  return raw === undefined ? undefined : parseLock(raw);
}

function parseLock(raw: string): LockInfo | undefined {
  try {
    return JSON.parse(raw) as LockInfo;
  } catch {
    // Half-written or garbled: treated as stale, like a lock whose process is gone.
    return undefined;
  }
}

function isAlive(info: LockInfo): boolean {
  // A lock from another machine cannot be checked; it is respected.
  if (info.host !== hostname()) return true;
  try {
    process.kill(info.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
