// One run at a time: a lock file (a campaign's, or a report's), taken over only when its owner is dead.
import { createHash } from 'node:crypto';
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

/**
 * The takeover file of generation `generation` for the stale lock whose text is `stale`: whoever
 * creates it may remove that lock. Named by the stale lock's text, so each dead lock has its own.
 */
export function takeoverPath(path: string, stale: string, generation: number): string {
  const id = createHash('sha256').update(stale).digest('hex').slice(0, 12);
  return `${path}.takeover-${id}-${generation}`;
}

/**
 * Removes a dead owner's lock, one process at a time; false when another run is at it. A run
 * killed mid-takeover leaves its takeover file behind. It is never removed by another (a removal
 * racing a fresh takeover file would let two in): the next generation's is taken instead, which
 * only one of any runs that found that holder dead can create.
 */
async function takeOver(path: string, stale: string): Promise<boolean> {
  const info = JSON.stringify({
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
  });
  let generation = 1;
  for (; ; generation++) {
    if (generation > MAX_TAKEOVERS) return false;
    const mutex = takeoverPath(path, stale, generation);
    try {
      await writeFile(mutex, info, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!(await takeoverAbandoned(mutex))) return false;
  }
  try {
    // Only the very lock judged stale may go, byte for byte (each holds its owner's pid, host and
    // start): one linked meanwhile by another run stays, and a lock already gone needs no removing.
    if ((await readIfExists(path)) === stale) await rm(path, { force: true });
    return true;
  } finally {
    // Once the stale lock is gone no takeover file of it is needed: a run still reaching for one
    // finds the lock changed and removes nothing.
    for (let g = generation; g >= 1; g--) await rm(takeoverPath(path, stale, g), { force: true });
  }
}

/** At most this many runs killed in the middle of taking over one dead lock. */
const MAX_TAKEOVERS = 20;

/** Whether a takeover file's run is gone: dead, or killed before it wrote its name (long ago). */
async function takeoverAbandoned(mutex: string): Promise<boolean> {
  const text = await readIfExists(mutex);
  if (text === undefined) return true;
  const holder = parseLock(text);
  if (holder) return !isAlive(holder);
  const age = Date.now() - (await stat(mutex).catch(() => ({ mtimeMs: 0 }))).mtimeMs;
  return age > 10_000;
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
