// One run per campaign: a lock file beside the report, taken over only when its owner is dead.
import { hostname } from 'node:os';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { LockedError } from '../errors.js';

interface LockInfo {
  pid: number;
  host: string;
  since: string;
}

export function lockPath(reportPath: string): string {
  return `${reportPath}.lock`;
}

export interface Lock {
  release(): Promise<void>;
}

export async function acquireLock(path: string): Promise<Lock> {
  for (let attempt = 0; attempt < 3; attempt++) {
    // Written aside, then linked into place: the lock never exists without its owner's name in it.
    const info: LockInfo = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
    const aside = `${path}.${process.pid}`;
    await writeFile(aside, JSON.stringify(info), { mode: 0o644 });
    try {
      await link(aside, path);
      return { release: () => rm(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await rm(aside, { force: true });
    }
    const holder = await readLock(path);
    if (holder && isAlive(holder)) {
      throw new LockedError(
        `another sms-send (pid ${holder.pid} on ${holder.host}, since ${holder.since}) is sending ` +
          `this campaign; nothing was sent. If no such run exists, delete ${path}.`,
      );
    }
    // The owner is gone (killed, crashed): its lock is stale, and the journal says where it stopped.
    await rm(path, { force: true });
  }
  throw new LockedError(`could not take the lock ${path}; nothing was sent`);
}

async function readLock(path: string): Promise<LockInfo | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as LockInfo;
  } catch {
    // Unreadable or half-written: treated as stale, like a lock whose process is gone.
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
