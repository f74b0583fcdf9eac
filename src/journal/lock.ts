// One run at a time: a lock file (a campaign's, or a report's), taken over only when its owner is dead.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname } from 'node:path';
import { rm } from 'node:fs/promises';
import { systemClock, type Clock } from '../shared/clock.js';
import { linkFile } from '../shared/disk.js';
import { describeSystemError, diskAdvice, LockedError, UsageError } from '../shared/errors.js';
import { asideOf, readIfExists, writeNewFile } from '../shared/files.js';

interface LockInfo {
  pid: number;
  host: string;
  since: string;
  /**
   * When the owner process started, as its system tells (Linux: clock ticks after boot): a live
   * process with the owner's pid but another start is another process that reuses the pid.
   */
  started?: string;
}

/** The report's own lock, `<report>.lock`: one writer of a report file at a time (a send or a dlr fold). */
export function lockPath(reportPath: string): string {
  return `${reportPath}.lock`;
}

/**
 * What the lock asks of the system, injectable (as the send loop takes its clock and randomness) so
 * tests can play a dead, live or foreign holder in-process. Each defaults to the real one.
 */
export interface LockOptions {
  /** Throws as `process.kill(pid, 0)` does: ESRCH for no such process, EPERM for another user's. */
  probe?: (pid: number) => void;
  hostname?: () => string;
  pid?: number;
  /** When process `pid` started, or undefined where the system does not tell (no /proc). */
  startOf?: (pid: number) => string | undefined;
  /** Dates the lock, and waits before the next attempt while another run takes over a dead lock. */
  clock?: Clock;
  random?: () => number;
}

type System = Required<LockOptions>;

function systemOf(options: LockOptions): System {
  return {
    probe: options.probe ?? ((pid) => process.kill(pid, 0)),
    hostname: options.hostname ?? hostname,
    pid: options.pid ?? process.pid,
    startOf: options.startOf ?? processStart,
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
  };
}

/** Whether a live process holds the lock at `path`. */
export async function lockIsHeld(path: string, options: LockOptions = {}): Promise<boolean> {
  const text = await readIfExists(path);
  const holder = text === undefined ? undefined : parseLock(text);
  return holder !== undefined && isAlive(holder, text!, systemOf(options));
}

export interface Lock {
  release(): Promise<void>;
}

/** `what` completes "another sms-send is …" in the refusal, e.g. "sending this campaign". */
export async function acquireLock(
  path: string,
  what = 'using this report',
  options: LockOptions = {},
): Promise<Lock> {
  const system = systemOf(options);
  const text = JSON.stringify(ownInfo(system));
  // Written aside, then linked into place: the lock never exists without its owner's name in it.
  // The aside file has a name of its own: one left by a killed run with this pid is a link to
  // that run's lock, and writing through it would put this run's name in that lock.
  const aside = asideOf(path);
  try {
    await writeNewFile(aside, text, { durable: false, mode: 0o644 });
  } catch (error) {
    throw unwritableLock(path, error);
  }
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await linkFile(aside, path);
        held.add(text);
        return {
          release: async () => {
            held.delete(text);
            await rm(path, { force: true });
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unwritableLock(path, error);
      }
      const seen = await readIfExists(path);
      // Released between our link and this read: link again, never "take over" nothing (another
      // run may link its lock in that moment, and removing it would let both run).
      if (seen === undefined) continue;
      const holder = parseLock(seen);
      if (holder && isAlive(holder, seen, system)) throw lockedBy(holder, path, what, system);
      // The owner is gone: take over, but one process at a time, or two could each remove the
      // lock the other just took.
      if (await takeOver(path, seen, system)) continue;
      await system.clock.sleep(20 + system.random() * 30);
    }
    throw new LockedError(
      `could not take the lock ${path}; nothing was sent. If no sms-send is running, delete ` +
        `${path} and any ${basename(path)}.takeover-* files beside it.`,
    );
  } finally {
    await rm(aside, { force: true });
  }
}

/** A lock that cannot be written (a full or read-only disk) stops the run before anything is sent. */
function unwritableLock(path: string, error: unknown): UsageError {
  const refusal = new UsageError(
    `cannot take the lock ${path}: ${describeSystemError(error)}; nothing was sent. ` +
      diskAdvice(error, dirname(path)),
    'state-unwritable',
  );
  refusal.cause = error;
  return refusal;
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
async function takeOver(path: string, stale: string, system: System): Promise<boolean> {
  const info = JSON.stringify(ownInfo(system));
  let generation = 1;
  for (; ; generation++) {
    if (generation > MAX_TAKEOVERS) return false;
    const mutex = takeoverPath(path, stale, generation);
    if (await linkNew(mutex, info)) break;
    if (!(await takeoverAbandoned(mutex, system))) return false;
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
 * An empty one is what a machine crash leaves of one whose text had not reached the disk: its
 * run is gone with the machine, and the next generation's file is taken.
 */
async function takeoverAbandoned(mutex: string, system: System): Promise<boolean> {
  const text = await readIfExists(mutex);
  if (text === undefined || text === '') return true;
  const holder = parseLock(text);
  return holder !== undefined && !isAlive(holder, text, system);
}

/** Creates `path` holding `text`, whole from its first moment; false when it exists. */
async function linkNew(path: string, text: string): Promise<boolean> {
  const aside = asideOf(path);
  await writeNewFile(aside, text, { durable: false, mode: 0o644 });
  try {
    await linkFile(aside, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    await rm(aside, { force: true });
  }
}

function ownInfo(system: System): LockInfo {
  const started = system.startOf(system.pid);
  return {
    pid: system.pid,
    host: system.hostname(),
    since: new Date(system.clock.now()).toISOString(),
    ...(started === undefined ? {} : { started }),
  };
}

/**
 * Field 22 of /proc/<pid>/stat, the process's start in clock ticks after boot; undefined where
 * there is no /proc (macOS) or no such process. The fields before it follow the command's name,
 * which may hold spaces and parentheses, so they are counted from its last ")".
 */
export function processStart(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/**
 * The texts of the locks (and takeover files) this process holds: one with its pid and another
 * text is stale.
 */
const held = new Set<string>();

function lockedBy(holder: LockInfo, path: string, what: string, system: System): LockedError {
  const { pid, host, since } = holder;
  return new LockedError(
    `another sms-send (pid ${pid} on ${host}, since ${since}) is ${what}; ` +
      `nothing was sent. If no such run exists, delete ${path}.`,
    { pid, host, since, seenAlive: host === system.hostname() },
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

function isAlive(info: LockInfo, text: string, system: System): boolean {
  // A lock from another machine cannot be checked; it is respected.
  if (info.host !== system.hostname()) return true;
  // This process's pid, yet not a lock it holds: left by an earlier run that had the same pid
  // (in a container, sms-send often has the same pid every time).
  if (info.pid === system.pid) return held.has(text);
  try {
    system.probe(info.pid);
    // Alive, but perhaps another process that was given the dead owner's pid since.
    if (info.started === undefined) return true;
    const started = system.startOf(info.pid);
    return started === undefined || started === info.started;
  } catch (error) {
    // EPERM: the process exists but belongs to another user; it is alive all the same.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
