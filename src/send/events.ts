// Events a campaign emits, validation to the last batch; the CLI turns them into a spinner,
// progress lines and the report, and the programmatic API hands them to its caller.
import { EventEmitter } from 'node:events';
import type { RowResult } from '../message/outcome.js';

export interface BatchReport {
  /** 1-based, in the order batches were taken. */
  batch: number;
  size: number;
  attempts: number;
  latencyMs: number;
  /** A short description: "200", "HTTP 503", "ECONNREFUSED". */
  status: string;
  verdict: 'results' | 'failed' | 'unknown';
}

export interface RetryNotice {
  batch: number;
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface SendEvents {
  /** Records validated so far, as the validation pass reads them (before anything is sent). */
  validated: [records: number];
  /** A problem that does not stop the run, such as a password file others can read. */
  warning: [message: string];
  /** What starting the run did to earlier state, worth saying: a rehearsal set aside, its report moved. */
  note: [message: string];
  /** `earlier`: settled by an earlier run of the campaign (from its journal), not sent by this one. */
  record: [row: RowResult, earlier?: boolean];
  batch: [BatchReport];
  retry: [RetryNotice];
  /**
   * The run stops taking batches: credentials refused, the gateway stayed unusable, or (with
   * `stateUnwritable`) the campaign's journal could not be written.
   */
  stop: [{ reason: string; authRefused: boolean; stateUnwritable?: boolean; takenOver?: boolean }];
  /**
   * Nothing has answered in this run and the endpoint refuses connections or does not resolve:
   * said once, at once, since it is more often a wrong endpoint than an outage.
   */
  unreachable: [{ reason: string }];
  /** The gateway looks down: no new batches while it is probed, for up to `graceMs`. */
  outage: [{ reason: string; graceMs: number }];
  /** A probe was answered: sending goes on. */
  recovered: [{ afterMs: number }];
  /**
   * Campaign state could not be written (a full disk): no new batches, and the answers the journal
   * could not record are written again for up to `graceMs` before the run stops.
   */
  stateHeld: [{ answers: number; reason: string; graceMs: number }];
  /** The answers held are on the disk after all. */
  stateKept: [{ afterMs: number }];
  /** The run waits for its send window to open; nothing is sent meanwhile. */
  waiting: [{ opensAt: number; now: number; timeZone: string }];
  /** The send window closed: no new batch is taken, those in flight finish. */
  windowClosed: [];
  /**
   * Sending begins (the window open, the campaign marked running): the run's time and rate count
   * from here, in the summary and on the page.
   */
  started: [{ at: number }];
}

export class SendEmitter extends EventEmitter<SendEvents> {}
