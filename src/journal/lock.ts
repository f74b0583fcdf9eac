// One run at a time: a lock file (a campaign's, or a report's), taken over only when its owner is dead.
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { basename } from 'node:path';
import { link, rm, writeFile } from 'node:fs/promises';
import { LockedError } from '../shared/errors.js';
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
  const text = await readIfExists(path);
  const holder = text === undefined ? undefined : parseLock(text);
  return holder !== undefined && isAlive(holder, text!);
}

export interface Lock {
  release(): Promise<void>;
}

/** `what` completes "another sms-send is …" in the refusal, e.g. "sending this campaign". */
export async function acquireLock(path: string, what = 'using this report'): Promise<Lock> {
  const text = JSON.stringify(ownInfo());
  // Written aside, then linked into place: the lock never exists without its owner's name in it.
  // The aside file has a name of its own: one left by a killed run with this pid is a link to
  // that run's lock, and writing through it would put this run's name in that lock.
  const aside = asidePath(path);
  await writeFile(aside, text, { mode: 0o644, flag: 'wx' });
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await link(aside, path);
        held.add(text);
        return {
          release: async () => {
            held.delete(text);
            await rm(path, { force: true });
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const seen = await readIfExists(path);
      // Released between our link and this read: link again, never "take over" nothing (another
      // run may link its lock in that moment, and removing it would let both run).
      if (seen === undefined) continue;
      const holder = parseLock(seen);
      if (holder && isAlive(holder, seen)) throw lockedBy(holder, path, what);
      // The owner is gone: take over, but one process at a time, or two could each remove the
      // lock the other just took.
      if (await takeOver(path, seen)) continue;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
    }
    throw new LockedError(
      `could not take the lock ${path}; nothing was sent. If no sms-send is running, delete ` +
        `${path} and any ${basename(path)}.takeover-* files beside it.`,
    );
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
  const info = JSON.stringify(ownInfo());
  let generation = 1;
  for (; ; generation++) {
    if (generation > MAX_TAKEOVERS) return false;
    const mutex = takeoverPath(path, stale, generation);
    if (await linkNew(mutex, info)) break;
    if (!(await takeoverAbandoned(mutex))) return false;
  }
  held.add(info);
  try {
    // Only the very lock judged stale may go, byte for byte (each holds its owner's pid, host and
    // start): one linked meanwhile by another run stays, and a lock already gone needs no removing.
    if ((await readIfExists(path)) === stale) await rm(path, { force: true });
    return true;
  } finally {
    // Once the stale lock is gone no takeover file of it is needed: a run still reaching for one
    // finds the lock changed and removes nothing.
    for (let g = generation; g >= 1; g--) await rm(takeoverPath(path, stale, g), { force: true });
    held.delete(info);
  }
}

/** At most this many runs killed in the middle of taking over one dead lock. */
const MAX_TAKEOVERS = 20;

/**
 * Whether a takeover file's run is gone. Takeover files are linked into place whole, so one
 * without a readable name was not written by sms-send: it is left alone, and the lock with it.
 */
async function takeoverAbandoned(mutex: string): Promise<boolean> {
  const text = await readIfExists(mutex);
  if (text === undefined) return true;
  const holder = parseLock(text);
  return holder !== undefined && !isAlive(holder, text);
}

/** Creates `path` holding `text`, whole from its first moment; false when it exists. */
async function linkNew(path: string, text: string): Promise<boolean> {
  const aside = asidePath(path);
  await writeFile(aside, text, { mode: 0o644, flag: 'wx' });
  try {
    await link(aside, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    await rm(aside, { force: true });
  }
}

function asidePath(path: string): string {
  return `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
}

function ownInfo(): LockInfo {
  return { pid: process.pid, host: hostname(), since: new Date().toISOString() };
}

/**
 * The texts of the locks (and takeover files) this process holds: one with its pid and another
 * text is stale.
 */
const held = new Set<string>();

function lockedBy(holder: LockInfo, path: string, what: string): LockedError {
  return new LockedError(
    `another sms-send (pid ${holder.pid} on ${holder.host}, since ${holder.since}) is ${what}; ` +
      `nothing was sent. If no such run exists, delete ${path}.`,
  );
}

function parseLock(raw: string): LockInfo | undefined {
  try {
    return JSON.parse(raw) as LockInfo;
  } catch {
    // Half-written or garbled: treated as stale, like a lock whose process is gone.
    return undefined;
  }
}

function isAlive(info: LockInfo, text: string): boolean {
  // A lock from another machine cannot be checked; it is respected.
  if (info.host !== hostname()) return true;
  // This process's pid, yet not a lock it holds: left by an earlier run that had the same pid
  // (in a container, sms-send often has the same pid every time).
  if (info.pid === process.pid) return held.has(text);
  try {
    process.kill(info.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
