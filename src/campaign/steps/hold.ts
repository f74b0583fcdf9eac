// What the steps after the claim read of a campaign's state: what a real run holds (and releases),
// or what a dry run saw when it looked; the same view of both, told apart by `kind`.
import type { LocalFiles } from '../../journal/cache.js';
import type { Lock } from '../../journal/lock.js';
import type { CampaignStore, Claim, Found, Held } from '../../journal/store.js';
import type { UsageError } from '../../shared/errors.js';
import type { SentBy } from './skip-sent.js';

/** What the campaign's state holds for this run, as a real run and a dry run both see it. */
export interface Taken {
  /** What the state decided: the manifest kept, the journal to continue, a rehearsal to set aside. */
  readonly found: Found;
  /**
   * The run continues the campaign (--resume, or --once of one an earlier run left unfinished):
   * its report is its own and is written afresh, its journal continued.
   */
  readonly resume: boolean;
  /** This host's files of the campaign: its spool. */
  readonly local: LocalFiles;
  /** Whom the campaigns --skip-sent-by names may have sent to: this run leaves them out. */
  readonly sentBy: readonly SentBy[];
  /** Whom the campaign's relatives may have sent to: counted, so a refusal can say how many. */
  readonly seenBy: readonly SentBy[];
  /** --resume asked for, and no run of this content is recorded: its relatives say why. */
  readonly resumedNothing: boolean;
  /** What taking the campaign found worth saying before it is sent (a rehearsal to set aside). */
  readonly notes: readonly string[];
}

/** A campaign that wrote a report, and the store that holds it. */
export interface Owner {
  id: string;
  store: CampaignStore;
}

/** What a real run holds while it runs, released by close(). */
export interface RunHold extends Taken {
  readonly kind: 'run';
  readonly claim: Claim;
  /** A recorded campaign whose report is where this run writes its own: set aside as it starts. */
  readonly reportOwner: Owner | undefined;
  /** The campaigns --skip-sent-by names, held while this run goes, by ID. */
  readonly skipHolds: ReadonlyMap<string, Held>;
  /** Of those, the ones this run sends the rest of: told so as it starts (markSupersedes). */
  readonly supersedes: readonly Held[];
  close(): Promise<void>;
}

/** A dry run's look at the state: what a real run would be refused with, and what it would find. */
export interface Look extends Taken {
  readonly kind: 'look';
  readonly refusal: UsageError | undefined;
}

/** What a run holds, taken one by one and released in the order a real run lets them go. */
export class Holdings {
  claim: Claim | undefined;
  reportLock: Lock | undefined;
  originalLock: Lock | undefined;
  readonly skipHolds = new Map<string, Held>();

  /**
   * Releases what was taken, each on its own: a disk that refuses a removal (read-only since)
   * leaves a lock of a dead run, which the next run takes over.
   */
  async close(): Promise<void> {
    const release = (step: Promise<void> | undefined) => step?.catch(() => undefined);
    await release(this.reportLock?.release());
    await release(this.claim?.release());
    await release(this.originalLock?.release());
    for (const held of this.skipHolds.values()) await release(held.release());
  }
}
