// Where a campaign's state lives, behind one interface: its claim, its manifest, its journal (each
// batch recorded before its request leaves, its answers after), what a resume reads, the
// delivery-report secret, rehearsals set aside, the list of campaigns. The state directory
// implements it (folder-store.ts); the send pass and the commands never name a file of it.
import type { KeyObject } from 'node:crypto';
import type { UsageError } from '../shared/errors.js';
import type { RowResult } from '../message/outcome.js';
import type { Claim, ClaimOptions, Inspected } from './claim.js';
import type { InputDigests } from './input-digests.js';
import type { SentTo } from './sent.js';
import type { Lock } from './lock.js';
import type { CampaignDetail, CampaignEntry } from './state.js';

/**
 * A write of a run that no longer holds its campaign: another run took it over (a store shared by
 * hosts, after this run's lease ran out). The run posts nothing more and ends with exit 4.
 */
export class HoldLostError extends Error {
  constructor(id: string) {
    super(`another run took campaign ${id} over`);
  }
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
  /** What a claim would meet, looked at without taking anything (a dry run). */
  inspect(options: ClaimOptions): Promise<Inspected>;
  /**
   * Holds a campaign for a run that is not its own (a follow-up holds its original, a run its
   * --skip-sent-by campaigns): exit 4 while another run holds it.
   */
  hold(id: string, what: string): Promise<Held>;
  /** Every campaign, newest first, from what each recorded of itself (no journal is read). */
  list(): Promise<CampaignEntry[]>;
  /** A campaign by its exact ID, if the store has it. */
  campaign(id: string): Promise<CampaignEntry | undefined>;
  /** A campaign by its ID or an unambiguous prefix of it (exit 2 when none or several). */
  find(id: string): Promise<CampaignEntry>;
  /** One campaign in full: a running or killed one counted from its journal. */
  detail(entry: CampaignEntry): Promise<CampaignDetail>;
  /** Whom a campaign may have sent to, from its journals (every run's): see sent.ts. */
  sentTo(id: string): Promise<SentTo>;

  /** Removes what finished before `before`; unfinished campaigns stay. Returns the IDs removed. */
  prune(before: Date): Promise<string[]>;
  /** The campaign (a rehearsal) that wrote a report, if one did. */
  rehearsalOf(report: string): Promise<CampaignEntry | undefined>;
  /** The key that signs delivery-report URLs, made on first use. */
  dlrSecret(): Promise<KeyObject>;
  /** Every key a delivery report may have been signed with, the current one first. */
  dlrSecrets(): Promise<KeyObject[]>;
  /** Changes when a key is made (a first send, a rotation): a receiver reads the keys again. */
  dlrSecretsVersion(): Promise<string>;
  /**
   * Rows a delivery report confirmed, recorded as accepted in the campaign whose newest report
   * is `report`: its ID, or undefined when no campaign wrote it or a run holds it.
   */
  recordConfirmed(report: string, rows: readonly RowResult[]): Promise<string | undefined>;
  /** The inputs' remembered digests: a cache of this host's files, kept on this host. */
  inputDigests(): Promise<InputDigests>;
  /** This host's folder for a campaign's local cache: its spool, its timeline. */
  localFolder(id: string): string;
  close(): Promise<void>;
}
