// Where a campaign's state lives, behind one interface in the store's own words: its claim, its
// manifest, its journal (each batch recorded before its request leaves, its answers after), the
// campaigns it holds, whom they sent to, the delivery-report keys. The state directory
// (folder/) and PostgreSQL (postgres/) implement it; the send pass and the commands never name a
// file or a table of it. What a run keeps on its own host is the cache's (cache.ts).
import type { KeyObject } from 'node:crypto';
import type { RowResult } from '../message/outcome.js';
import type { Outcome } from '../message/outcome.js';
import type { UsageError } from '../shared/errors.js';
import type { ClaimOptions } from './decide.js';
import type { JournalSink } from './lines.js';
import type { Lock } from './lock.js';
import type { CampaignStatus, FinishFields, Manifest, StartFields } from './manifest.js';
import type { JournalState } from './reading.js';
import type { SentTo } from './sent.js';

/** What `CampaignStore.prune` may leave out: everything (a dry run), or what was not listed. */
export interface PruneOptions {
  dryRun?: boolean;
  only?: readonly string[];
}

export interface CampaignStore {
  /** Where the state is, as output names it: the state directory, or a database (its password masked). */
  readonly where: string;
  /** What a real run would be refused with, writing state here; a dry run says it too. */
  problem(): Promise<UsageError | undefined>;
  /**
   * Claims a campaign for a run: exit 4 while another run holds it; its state read once and
   * decided (start, resume, or refused: exit 2 when it was sent or is unfinished).
   */
  claim(options: ClaimOptions): Promise<Claim>;
  /** What a claim would find, looked at without taking anything (a dry run). */
  inspect(options: ClaimOptions): Promise<Inspected>;
  /**
   * Holds a campaign for a run that is not its own (a follow-up holds its original, a run its
   * --skip-sent-by campaigns): exit 4 while another run holds it.
   */
  hold(id: string, what: string): Promise<Held>;
  /**
   * The campaigns, newest first, from what each recorded of itself (no journal is read): every
   * one, or the one of an exact ID.
   */
  campaigns(query?: { id: string }): Promise<CampaignEntry[]>;
  /** One campaign in full: a running or killed one counted from its journal. */
  detail(entry: CampaignEntry): Promise<CampaignDetail>;
  /** Whom a campaign may have sent to, from its journals (every run's): see sent.ts. */
  sentTo(id: string): Promise<SentTo>;
  /**
   * Removes what finished before `before`; unfinished campaigns stay. Returns the IDs removed, or
   * with `dryRun` those it would remove (removing nothing); `only` keeps it to those IDs (the ones
   * a user was shown and said yes to).
   */
  prune(before: Date, options?: PruneOptions): Promise<string[]>;
  /**
   * The keys delivery-report URLs are signed with, the current one first, and their version (a
   * first send or a rotation changes it). `make`: the current key is made first when none is.
   */
  dlrKeys(make?: boolean): Promise<DlrKeys>;
  /** The campaign's runs as each was last kept (Claim.keepRun), in the order they began. */
  runs(id: string): Promise<RunRecord[]>;
  /**
   * Rows a delivery report confirmed, recorded as accepted in the campaign whose newest report
   * is `report`: its ID, or undefined when no campaign wrote it or a run holds it.
   */
  recordConfirmed(report: string, rows: readonly RowResult[]): Promise<string | undefined>;
  /**
   * The campaigns' delivery reports, when this store keeps them (a database shared by hosts, so
   * that every receiver behind one URL and every host that reads see the same); the state
   * directory keeps none: there they live in the report and the receiver's log.
   */
  readonly deliveries?: DeliveryShelf;
  /**
   * The report the campaign's newest run ended with, as kept by a store shared by hosts (any host
   * writes it out again); undefined when none was kept, or the store keeps none (the state
   * directory: the report is the file on this host).
   */
  reportCopy?(id: string): Promise<ReportCopy | undefined>;
  close(): Promise<void>;
}

/** A report as a run ended with it, kept whole: what it was, and its bytes part by part. */
export interface ReportCopy {
  /** Where its run wrote it, on `host`. */
  path: string;
  host: string;
  bytes: number;
  sha256: string;
  /** The run of the campaign that ended with it (the manifest's `runs` then). */
  run: number;
  /** When it was kept (ISO 8601). */
  keptAt: string;
  /** Its bytes, part by part; rejects (ReportCopyChanged) when it was replaced while being read. */
  parts(): AsyncIterable<Buffer>;
}

/** A report copy replaced while it was read: another run of the campaign ended meanwhile. */
export class ReportCopyChanged extends Error {
  constructor(id: string) {
    super(`campaign ${id}'s report was kept anew while it was being read (another run ended)`);
  }
}

/** Delivery reports kept by campaign, as the receivers verified them. */
export interface DeliveryShelf {
  /**
   * Keeps one report of a campaign (one without a status carries nothing to keep); resolves once
   * it is durable. False when the store holds no such campaign.
   */
  add(campaign: string, report: StoredDelivery): Promise<boolean>;
  /** A campaign's reports in the order they were kept. */
  read(campaign: string): AsyncIterable<StoredDelivery>;
  /** Keeps one report of a canary's test message (`check --await-dlr`), which is no campaign's. */
  addCanary(report: StoredDelivery): Promise<void>;
  /** The reports kept for a canary's test message, in the order they were kept. */
  canary(messageId: string): Promise<StoredDelivery[]>;
}

/** A delivery report as kept: what decides its place among a message's reports. */
export interface StoredDelivery {
  messageId: string;
  status: string;
  timestamp: string | undefined;
  transactionId: string | undefined;
  /** When a receiver got it (ISO 8601). */
  receivedAt: string;
}

/** What the campaign's state decided when it was claimed (or looked at), read once. */
export interface Found {
  /** The manifest of earlier runs, kept: this run continues the campaign. */
  previous?: Manifest;
  /** The journal to continue from; a finished campaign's is read only when needed (`finished`). */
  journal?: JournalState;
  /**
   * --resume of a finished campaign: its journal is not read yet, since its manifest may answer
   * (nothing left to send); readJournal() reads it when it cannot.
   */
  finished: boolean;
  /** --once of a finished campaign: nothing to do, nothing sent. */
  done: boolean;
  /** A finished rehearsal of this content, set aside under a name of its own once the run starts. */
  rehearsal?: Manifest;
}

/** A campaign this run holds: what its state decided, and what the run changes of it. */
export interface Claim {
  readonly found: Found;
  /** The journal as it stands now, read again: what a resume of this run would find. */
  readJournal(): Promise<JournalState>;
  /**
   * The journal this run records in. `freshAt` (the run's start, when it continues no journal):
   * an earlier journal is set aside first, kept, never deleted (a --force run's).
   */
  openJournal(freshAt?: number): Promise<JournalSink>;
  /**
   * Marks the campaign running: from here on its state is kept, whatever happens. A finished
   * rehearsal of the campaign, and the report a rehearsal wrote where this run writes its own,
   * are set aside first; what that did is returned, to be said.
   */
  start(fields: StartFields): Promise<string[]>;
  /**
   * Records how the run ended; with `report`, the report it ended with is kept as the campaign's
   * copy (a store shared by hosts: see CampaignStore.reportCopy), before the manifest says so.
   */
  finish(update: FinishFields, report?: string): Promise<void>;
  /**
   * Keeps this run's record for the campaign's page, replacing the one it kept before under the
   * same key: kept as the run goes, so a run killed on one host is told on every other.
   */
  keepRun(record: RunRecord): Promise<void>;
  /** Releases the claim; a run that never started leaves no state behind to block the next. */
  release(): Promise<void>;
}

/**
 * One run of a campaign as its page tells it: the host it ran on and what the page draws of it
 * (the report layer's own shape, which the store keeps as it is given). `key` names the run.
 */
export interface RunRecord {
  key: string;
  host: string;
  data: object;
}

/** A dry run's look: what a real run would be refused with, or what its claim would find. */
export interface Inspected {
  refusal?: UsageError;
  found: Found;
}

/** A campaign held by a run that is not its own, and what that run may change of it. */
export interface Held extends Lock {
  /**
   * Sets the campaign's report at `report` aside (the holder writes its own there): renamed with
   * the campaign's ID, and its manifest told so, so its own rows stay its own. The new name, or
   * undefined when the campaign wrote no such report.
   */
  moveReport(report: string): Promise<string | undefined>;
  /**
   * Records in the campaign's manifest that the holder (campaign `by`) sends the rest of its
   * content: it is not continued from then on (decide.ts), wherever `by` is recorded.
   */
  supersede(by: string): Promise<void>;
}

/** The delivery-report keys: the current one first, then the retired ones. */
export interface DlrKeys {
  keys: KeyObject[];
  /** Changes when a key is made (a first send, a rotation): a receiver reads the keys again. */
  version: string;
}

export interface CampaignEntry {
  manifest: Manifest;
  status: CampaignStatus;
  /** Where its state is, as output names it: its folder, or its place in a database. */
  where: string;
  /** The host that holds the campaign, or last held it (a store shared by hosts says). */
  host?: string;
  /**
   * The run that holds it ran on this host and its process is gone (killed): its hold lasts
   * until its lease runs out, at this time (ISO 8601), and keeps other runs out until then.
   */
  goneUntil?: string;
  /**
   * Rows settled by outcome: the summary the manifest holds from when a run last ended or
   * stopped. For a campaign running, or killed mid-run, detail() counts its journal.
   */
  counts: Record<Outcome, number>;
}

/**
 * Whether a campaign is counted from its journal: a run is sending it, or was killed before it
 * could write its counts (its manifest still says running). A run that ended, even by Ctrl-C,
 * wrote them, with the invalid and skipped rows a journal never holds.
 */
export function countedFromJournal(entry: CampaignEntry): boolean {
  return entry.status === 'running' || entry.manifest.status === 'running';
}

/** One campaign in full, as `campaigns show` tells it. */
export interface CampaignDetail extends CampaignEntry {
  /** Whether the counts are the journal's (a campaign running or killed mid-run). */
  countedFromJournal: boolean;
  /** The journal they were counted from. */
  journal?: JournalState;
  /** Journals --force runs set aside: how many, and their bytes. */
  setAside: { journals: number; bytes: number };
}

/**
 * A write of a run that no longer holds its campaign: another run took it over (a store shared by
 * hosts, after this run's lease ran out). The run posts nothing more and ends with exit 4.
 */
export class HoldLostError extends Error {
  constructor(id: string) {
    super(`another run took campaign ${id} over`);
  }
}
