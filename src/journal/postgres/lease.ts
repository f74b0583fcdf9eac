// A campaign held by one run among every host: a lease with a fencing number that grows at every
// takeover. The database's clock alone says when a lease has run out; every write of the holder
// checks its number, so a run whose lease was taken over writes nothing more, whatever its clock.
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { monotonicClock } from '../../shared/clock.js';
import { LockedError, StateStoreError } from '../../shared/errors.js';
import { HoldLostError } from '../store.js';
import type { Database, Queries } from './connect.js';
import { DATABASE_DOWN_ADVICE } from './failures.js';
import { addCampaign } from './sql/add-campaign.js';
import type { Fenced } from './sql/fenced.js';
import { lockCampaign, type LeaseRow } from './sql/lock-campaign.js';
import { releaseLease } from './sql/release-lease.js';
import { renewLease } from './sql/renew-lease.js';
import { takeLease } from './sql/take-lease.js';

/**
 * Who this run is, as other hosts see it while it holds a campaign: its host, its pid, and the pid
 * namespace the pid is in (containers on one host may share its name, not their pids).
 */
export function holderName(): { holder: string; host: string } {
  const ns = pidNamespace();
  return {
    holder: `${hostname()} pid ${process.pid}${ns === undefined ? '' : ` ns ${ns}`}`,
    host: hostname(),
  };
}

/** This process's pid namespace (Linux), or undefined where it cannot be read. */
function pidNamespace(): string | undefined {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
  } catch {
    return undefined;
  }
}

/**
 * Whether a holder named as holderName() names it is a process of this host that is gone (killed):
 * a holder on another host cannot be looked at, and is taken to live.
 */
export function goneFromHere(holder: string | null): boolean {
  const match = /^(.*) pid (\d+)(?: ns (\d+))?$/.exec(holder ?? '');
  if (!match || match[1] !== hostname()) return false;
  // A pid is looked up only in the namespace it was given in.
  if (match[3] === undefined || match[3] !== pidNamespace()) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists, as another user's.
    return (error as NodeJS.ErrnoException).code !== 'EPERM';
  }
}

/**
 * Takes the campaign's lease in the caller's transaction (its row made if new, then locked): exit 4
 * while another run's lease is live. Returns the row as it was, and the new fencing number.
 */
export async function takeCampaign(
  tx: Queries,
  id: string,
  leaseMs: number,
  what: string,
): Promise<{ row: LeaseRow; fence: string; created: boolean }> {
  const created = await addCampaign(tx, id);
  const row = (await lockCampaign(tx, id))!;
  const fence = row.live ? undefined : await takeLease(tx, id, holderName(), leaseMs / 1000);
  if (fence === undefined) throw heldElsewhere(id, row, what);
  return { row, fence, created };
}

/** The refusal of a campaign another run's live lease holds (exit 4). */
function heldElsewhere(id: string, row: LeaseRow, what: string): LockedError {
  const gone = goneFromHere(row.holder);
  return new LockedError(
    `campaign ${id} is held by another run (${row.holder ?? 'unknown'}${what === '' ? '' : `, ${what}`}); nothing was sent. ` +
      (gone
        ? `That run is gone from this host (killed): its hold lasts until its lease runs out, at ${row.lease_until?.toISOString() ?? '?'}; run this again then.`
        : 'Its hold ends when that run does, or once it has not been renewed for the lease.'),
  );
}

/**
 * The lease a run holds: renewed every third of its length while the run lives, checked before
 * each request leaves. Lost when a renewal finds another number (a takeover), or when no statement
 * has confirmed it for a whole lease (a pause, a cut connection): the run posts nothing more.
 */
export class Lease implements Fenced {
  private confirmedAt = monotonicClock.now();
  private timer: NodeJS.Timeout | undefined;
  private lost: Error | undefined;

  constructor(
    private readonly db: Database,
    readonly id: string,
    readonly fence: string,
    readonly leaseMs: number,
  ) {
    this.timer = setInterval(() => void this.renew(), Math.max(100, leaseMs / 3));
    this.timer.unref();
  }

  /** A statement that checked the number succeeded; it was sent at `sentAt` (monotonic). */
  confirmed(sentAt: number): void {
    this.confirmedAt = Math.max(this.confirmedAt, sentAt);
  }

  /** Why the run may no longer write, once it may not. */
  get failure(): Error | undefined {
    return this.lost;
  }

  /**
   * Marks the lease lost: the database did not confirm it in time, or another run holds the
   * campaign now (which, once known, is what the run ends with).
   */
  lose(error: Error): void {
    const takeover = error instanceof HoldLostError && !(this.lost instanceof HoldLostError);
    if (this.lost === undefined || takeover) this.lost = error;
  }

  /** Whether a request may leave now: the lease is confirmed within its length and not lost. */
  mayPost(): boolean {
    if (this.lost) return false;
    if (monotonicClock.now() - this.confirmedAt < this.leaseMs) return true;
    this.lose(
      new StateStoreError(
        `the campaign state database ${this.db.where} did not confirm this run's hold on ` +
          `campaign ${this.id} within the lease (${this.leaseMs / 1000} s)`,
        false,
        DATABASE_DOWN_ADVICE,
      ),
    );
    return false;
  }

  private async renew(): Promise<void> {
    if (this.lost) return;
    const sentAt = monotonicClock.now();
    try {
      if (await renewLease(this.db, this, this.leaseMs / 1000)) this.confirmed(sentAt);
      else this.lose(new HoldLostError(this.id));
    } catch {
      // The next renewal tries again; mayPost() says when it has been too long.
    }
  }

  /** Stops renewing; the caller then gives the campaign up (or deletes it) under its number. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Stops renewing and gives the campaign up, if this run still holds it. */
  async release(): Promise<void> {
    this.stop();
    await releaseLease(this.db, this);
  }
}
