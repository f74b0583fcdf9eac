// What `sms-send retry` is asked for and what it plans: the records of a sent campaign that did not get through.
import type { Program } from '../../shared/shell.js';
import type { CampaignEntry } from '../../journal/store.js';
import type { CampaignStore } from '../../journal/store.js';
import type { FollowUp } from '../types.js';

/** What a follow-up re-sends besides `failed` and `rejected`, only when asked. */
export type Include = 'unknown' | 'undelivered';
export const INCLUDES: readonly Include[] = ['unknown', 'undelivered'];

/** Why a row of the original report is re-sent. */
export type RetryReason = 'failed' | 'rejected' | Include;

export interface RetrySelection {
  /** Rows chosen, by why. */
  chosen: Record<RetryReason, number>;
  /** Rows not chosen because their kind was not asked for (`--include`). */
  left: Record<Include, number>;
  /** Chosen rows an earlier follow-up of the same campaign has re-sent already, not again. */
  alreadyRetried: number;
  /** The earlier follow-ups those were re-sent by. */
  earlierFollowUps: string[];
}

export interface RetryPlan {
  original: CampaignEntry;
  /** The original's report the rows were chosen from. */
  report: string;
  selection: RetrySelection;
  /** Undefined when there is nothing to re-send. */
  followUp?: FollowUp;
  /**
   * The same retry ran before and did not finish: this one finishes it (as --resume does), never
   * sending what it settled.
   */
  resume?: boolean;
}

export interface RetryRequest {
  /** An ID or ID prefix from `sms-send campaigns`, or the path of a campaign's report. */
  campaign: string;
  include: readonly Include[];
  /** Where the campaigns are. */
  store: CampaignStore;
  /** The follow-up goes to the simulator. */
  simulate: boolean;
  /** Resuming: an interrupted follow-up of the campaign goes on with the rows it chose. */
  resume?: boolean;
  /** How the user runs sms-send, for the commands refusals name (default `sms-send`). */
  program?: Program;
}
