// What sendLoop() is given and what it answers: the gateway it posts to, the hooks around each
// request, the options of the loop, and how the run ended.
import type { Answer } from '../gateway/outcome.js';
import type { RowResult } from '../message/outcome.js';
import type { Clock } from '../shared/clock.js';
import type { Entry } from '../validate/entries.js';
import type { SendEmitter } from './events.js';
import type { RateLimiter } from './rate.js';

/** An entry that is a message to send, as batches hold them. */
export type MessageEntry = Extract<Entry, { kind: 'message' }>;

/**
 * The one thing sendLoop() needs of the gateway client: a batch POSTed, its answer classified and
 * already free of secrets. Tests may pass another implementation.
 */
export interface Poster {
  /** `posted` is called once the request has been written whole: it has left for the gateway. */
  post(
    messages: readonly string[],
    messageIds: readonly string[],
    signal?: AbortSignal,
    posted?: () => void,
  ): Promise<Answer>;
}

/** Awaited around each request, so a journal can make intent and result durable in order. */
export interface SendHooks {
  /** A batch about to be sent: its rows, and the recipient of each. */
  beforeSend?(batch: number, rows: readonly number[], recipients: readonly string[]): Promise<void>;
  /** The request was written whole (not awaited: it is detail, not a condition of sending). */
  posted?(batch: number): void;
  /** The attempt surely did not reach the gateway: the batch is not in flight until sent again. */
  notSent?(batch: number, rows: readonly number[]): Promise<void>;
  afterResult?(batch: number, rows: readonly RowResult[]): Promise<void>;
}

/**
 * The part of a campaign run the send loop reads, in place: its sending settings, its choices and
 * its io (the run's one value satisfies it; tests give only these).
 */
export interface LoopRun {
  settings: {
    batchSize: number;
    concurrency: number;
    retries: number;
    /**
     * How long an open breaker (or a batch that surely did not get through) waits for the gateway,
     * probing it with an empty request, before the run stops; 0 never waits.
     */
    outageGraceMs: number;
    /** Messages per second; undefined means unlimited. */
    rate?: number;
  };
  /** `retryUnknown`: also resend batches whose outcome is unknown (may deliver twice). */
  choices: { retryUnknown?: boolean };
  io: {
    events: SendEmitter;
    /** The clock the grace is measured with and retries wait on; a test's need not wait. */
    clock: Clock;
    /** Once aborted, no new batch is taken; batches in flight finish. */
    stop?: AbortSignal;
    /** Once aborted, requests in flight are abandoned (their records become unknown). */
    abort?: AbortSignal;
  };
}

/** What the loop sends through, and what it asks around each request. */
export interface LoopGateway {
  poster: Poster;
  hooks?: SendHooks;
  /**
   * Asked before each new batch is taken: once it says no, the send window has closed, no new
   * batch is taken and those in flight finish.
   */
  windowOpen?: () => boolean;
  /** The rate limit, when a test brings one; else the run's `rate` on a monotonic clock. */
  limiter?: RateLimiter;
  /** Request-level failures in a row that open the circuit breaker (default 5). */
  maxConsecutiveFailures?: number;
  random?: () => number;
}

export interface SendOutcome {
  /**
   * Why the run stopped early, when it did; unsent records were reported `failed`.
   * `stateUnwritable`: the journal could not be written (a full disk), not the gateway;
   * `takenOver`: it could not because another run took the campaign over; `storeDown`: the
   * store shared by hosts (its database) failed, not this host's disk.
   */
  stopped?: {
    reason: string;
    authRefused: boolean;
    stateUnwritable?: boolean;
    takenOver?: boolean;
    storeDown?: boolean;
  };
  /** True when a stop or abort signal ended the run early. */
  interrupted: boolean;
  /** True when the send window closed before every record was sent. */
  windowClosed?: boolean;
  /** Records never attempted because the run stopped or was interrupted (`failed` or `skipped`). */
  notSent: number;
  /** sms-send's simulator answered (docs/simulator.md): nothing reached a phone. */
  rehearsal?: true;
}
