// What a campaign run answers: the planned campaign, the run's result, a follow-up's part of
// the run (the run itself is run.ts's), and a campaign as `campaigns` shows it.
import type { CampaignIdentity, CampaignShape } from '../journal/identity.js';
import type { CampaignDetail } from '../journal/store.js';
import type { FollowUpOf } from '../journal/manifest.js';
import type { RunSummary, Tally } from '../report/summary.js';
import type { SendOutcome } from '../send/types.js';
import type { ExitCode, UsageError } from '../shared/errors.js';
import type { Plan } from '../validate/plan.js';

/** Why the plan refuses the run; refusal.ts words it, exit 2. */
export type Refusal = 'invalid-input' | 'empty-input' | 'over-max-cost';

/** A campaign validated and planned: what the caller shows, and asks about, before it is sent. */
export interface PlannedCampaign {
  identity: CampaignIdentity;
  reportPath: string;
  plan: Plan;
  refusal?: Refusal;
  /** Records this run will send: on resume, only what an earlier run did not settle. */
  toSend: number;
  /** An earlier run's journal is continued. */
  resuming: boolean;
  /** A follow-up campaign (`sms-send retry`), which takes no input flags such as --skip-invalid. */
  followUp: boolean;
  /** Dry run only: what the campaign's state would refuse a real run with (exit 2, or 4). */
  stateRefusal?: UsageError;
  /** Counts every row as it is reported; progress reads it while the run sends. */
  tally: Tally;
  /** What claiming it found worth saying before it is sent (a rehearsal to set aside). */
  readonly notes: readonly string[];
}

/** How a run the send window stopped stands: what it sent, what is left, when it opens again. */
export interface WindowClosed {
  sent: number;
  left: number;
  /** `09:00-21:00 mon-fri Europe/Oslo` */
  window: string;
  timeZone: string;
  now: number;
  opensAt: number;
}

export interface CampaignResult {
  send: SendResult;
  summary: RunSummary;
  /** The earlier run's report, when this resumed run wrote the complete one elsewhere. */
  previousReport?: string;
  /** A finished campaign's report, named where it is: not the file this run named here. */
  reportElsewhere?: ReportElsewhere;
  /** Set when the send window closed before every record was sent (exit 5). */
  windowClosed?: WindowClosed;
  exitCode: ExitCode;
}

/**
 * Where a finished campaign's complete report is (`report`, the summary's), when it is not the
 * file the run named on this host: on `host` when another host wrote it; this host's file at the
 * run's report path (`staleHere`) is then not the campaign's report.
 */
export interface ReportElsewhere {
  report: string;
  host?: string;
  staleHere?: string;
}

/** What prepareCampaign needs to build a follow-up campaign instead of a campaign of its own. */
export interface FollowUp {
  identity: CampaignIdentity;
  of: FollowUpOf;
  /** How the original made its messages: the follow-up makes them the same way. */
  shape: CampaignShape;
  /** The original campaign's inputs, as its state recorded them. */
  inputs: readonly { path: string; sha256: string; bytes: number }[];
  /** The suppression lists the original was sent with: they apply to the follow-up too. */
  suppress: readonly string[];
  /** The rows to re-send (the original's row numbers) → the MessageId each had in the original. */
  rows: ReadonlyMap<number, string>;
}

export interface ResumeCounts {
  /** Records whose result came from the journal (those taken from a report included). */
  fromJournal: number;
  /** Of those, the answers an earlier run could not journal and kept in its report. */
  fromReport: number;
  /** Records an earlier run sent without an answer: unknown, not sent again. */
  inFlight: number;
  /** Records an earlier run recorded as about to be sent, not known to have left: unknown too. */
  unposted: number;
}

export interface StateLeft {
  /** Records settled and kept: in the journal, or (`inReport` of them) only in the report. */
  settled: number;
  inReport: number;
  /** Unknown, and not sent again: sent without an answer. */
  sentNoAnswer: number;
  /** Unknown, and not sent again: recorded as about to be sent, not known to have left. */
  unposted: number;
  /** Records the resume sends. */
  toSend: number;
  /**
   * Answers that came but that no successful sync made durable (neither the journal's nor the
   * report's), in row order: the stop lists them for the operator to keep, since the resume may
   * find none of them (it takes those the report still holds, and reports the rest unknown).
   */
  lost: LostAnswer[];
}

/** An answer the gateway gave that could not be made durable: what the operator keeps of it. */
export interface LostAnswer {
  row: number;
  messageId: string;
  outcome: string;
  statusCode?: number;
  transactionId?: string;
}

export interface SendResult extends SendOutcome {
  resumed?: ResumeCounts;
  /**
   * Set when campaign state could not be written: how the campaign stands for the --resume that
   * finishes it, counted from the files it will read (see docs/campaign-state.md#when-the-disk-fails).
   */
  left?: StateLeft;
}

/** A follow-up campaign (`retry`) of the one shown, as `campaigns show` names it. */
export interface FollowUpListed {
  id: string;
  status: CampaignDetail['status'];
  include: string[];
  counts: CampaignDetail['counts'];
}

/** A campaign counted as its --resume will find it. */
export interface Standing extends CampaignDetail {
  /** Answers only its report holds (the journal could not record them), counted with the rest. */
  fromReport: number;
  /** Rows its journal leaves in flight: sent without an answer, or not known to have left. */
  inFlight: { sentWithoutAnswer: number; notKnownToHaveLeft: number };
}

/** A campaign shown in full: what it set aside, and the follow-ups that re-sent its records. */
export interface ShownCampaign extends Standing {
  followUps: FollowUpListed[];
  /**
   * Messages by delivery status, from the reports the store keeps (a database: every receiver's);
   * absent where the store keeps none (the state directory: they are in the report).
   */
  deliveries?: Record<string, number>;
}
