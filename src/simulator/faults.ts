// Fault settings and their seeded per-request decisions, so a faulty run can be replayed exactly.

/**
 * Faults to inject. Probabilities are in [0, 1] and are drawn per request (per message for
 * `rejectMessage`) from a PRNG seeded with the simulator's seed and the request's sequence
 * number, so the same seed and the same order of requests give the same decisions however
 * the requests interleave.
 */
export interface FaultOptions {
  /** Delay in ms before answering every request (after processing, so a timed-out request may still be in the ledger). */
  latencyMs?: number;
  /** Plus a seeded random 0..latencyJitterMs ms. */
  latencyJitterMs?: number;
  /** Probability of 503 with Retry-After, before processing anything. */
  unavailable?: number;
  /** Probability of 429 with Retry-After, before processing anything. */
  rateLimited?: number;
  /** Retry-After in whole seconds for 429 and 503 (default 1). */
  retryAfterSeconds?: number;
  /** Probability of processing (ledger updated) and then answering 500. */
  errorAfterProcessing?: number;
  /** Probability of resetting the connection without processing. */
  resetBeforeProcessing?: number;
  /** Probability of processing (ledger updated) and then resetting the connection, unanswered. */
  resetAfterProcessing?: number;
  /** Probability of never answering; the socket stays open until stop(). */
  hang?: number;
  /** Probability of HTTP 200 with ProcessResult false and nothing processed. */
  processResultFalse?: number;
  /** Probability, per otherwise valid message, of StatusCode 120 (simulated operator rejection). */
  rejectMessage?: number;
  /** More messages than this in one request: ProcessResult false, nothing processed. */
  maxBatchSize?: number;
  /** HTTP status for refused credentials; the body is the same ProcessResult false response (default 200). */
  authStatus?: 200 | 401 | 403;
}

/** Each fault as `--fault name=value` takes it: the value, and what it does (docs/simulator.md). */
export const FAULT_HELP: Record<keyof FaultOptions, [value: string, effect: string]> = {
  latencyMs: ['ms', 'delay before every answer'],
  latencyJitterMs: ['ms', 'plus a random delay up to this'],
  unavailable: ['probability', '503 with Retry-After, nothing processed'],
  rateLimited: ['probability', '429 with Retry-After, nothing processed'],
  retryAfterSeconds: ['seconds', 'the Retry-After value (default 1)'],
  errorAfterProcessing: ['probability', 'messages accepted, then HTTP 500'],
  resetBeforeProcessing: ['probability', 'connection dropped, nothing processed'],
  resetAfterProcessing: ['probability', 'messages accepted, then the connection dropped'],
  hang: ['probability', 'never answers'],
  processResultFalse: ['probability', 'ProcessResult false, nothing processed'],
  rejectMessage: ['probability', 'per message: StatusCode 120'],
  maxBatchSize: ['count', 'larger requests get ProcessResult false'],
  authStatus: ['200|401|403', 'HTTP status for bad credentials'],
};

/** What happens to a request before it is processed; the first of these that fires wins. */
export type BeforeFault =
  'none' | 'unavailable' | 'rate-limited' | 'reset-before' | 'hang' | 'process-result-false';

/** What happens after processing; a reset wins over a 500. */
export type AfterFault = 'none' | 'reset-after' | 'error-after';

/** The decisions for one request, drawn in a fixed order. */
export interface RequestFaults {
  delayMs: number;
  before: BeforeFault;
  after: AfterFault;
  /** Draws the next per-message decision; call once per Messages item, in order. */
  rejectNext(): boolean;
}

/** The faults that are probabilities, 0 to 1. */
export const PROBABILITIES = [
  'unavailable',
  'rateLimited',
  'errorAfterProcessing',
  'resetBeforeProcessing',
  'resetAfterProcessing',
  'hang',
  'processResultFalse',
  'rejectMessage',
] as const;

/** Throws a RangeError naming the first bad setting, so a CLI flag or config mistake is caught at once. */
export function validateFaults(faults: FaultOptions): FaultOptions {
  for (const key of PROBABILITIES) {
    const p = faults[key];
    if (p !== undefined && !(typeof p === 'number' && p >= 0 && p <= 1)) {
      throw new RangeError(`fault ${key} must be a probability between 0 and 1, got ${String(p)}`);
    }
  }
  for (const key of ['latencyMs', 'latencyJitterMs'] as const) {
    const ms = faults[key];
    if (ms !== undefined && !(typeof ms === 'number' && Number.isFinite(ms) && ms >= 0)) {
      throw new RangeError(`fault ${key} must be a non-negative number of ms, got ${String(ms)}`);
    }
  }
  const retryAfter = faults.retryAfterSeconds;
  if (retryAfter !== undefined && !(Number.isSafeInteger(retryAfter) && retryAfter >= 0)) {
    throw new RangeError(
      `fault retryAfterSeconds must be a whole number of seconds, got ${String(retryAfter)}`,
    );
  }
  const max = faults.maxBatchSize;
  if (max !== undefined && !(Number.isSafeInteger(max) && max > 0)) {
    throw new RangeError(`fault maxBatchSize must be a positive integer, got ${String(max)}`);
  }
  const auth = faults.authStatus;
  if (auth !== undefined && auth !== 200 && auth !== 401 && auth !== 403) {
    throw new RangeError(`fault authStatus must be 200, 401 or 403, got ${String(auth)}`);
  }
  return { ...faults };
}

/** mulberry32: tiny, fast and good enough for fault dice. Returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One stream per request, derived from (seed, seq), so decisions do not depend on timing. */
export function requestRandom(seed: number, seq: number): () => number {
  let h = (seed ^ Math.imul(seq, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return mulberry32((h ^ (h >>> 16)) >>> 0);
}

function fires(probability: number | undefined, roll: number): boolean {
  return probability !== undefined && roll < probability;
}

/**
 * Draws every request-level decision up front, always the same number of draws in the same
 * order (jitter, unavailable, rateLimited, resetBefore, hang, processResultFalse, resetAfter,
 * errorAfter), so turning one fault on does not shift the others' dice; per-message draws come last.
 */
export function decideFaults(faults: FaultOptions, seed: number, seq: number): RequestFaults {
  const random = requestRandom(seed, seq);
  const jitter = random();
  const rolls = [random(), random(), random(), random(), random(), random(), random()] as const;
  const delayMs =
    (faults.latencyMs ?? 0) + Math.floor(jitter * (Math.floor(faults.latencyJitterMs ?? 0) + 1));

  let before: BeforeFault = 'none';
  if (fires(faults.unavailable, rolls[0])) before = 'unavailable';
  else if (fires(faults.rateLimited, rolls[1])) before = 'rate-limited';
  else if (fires(faults.resetBeforeProcessing, rolls[2])) before = 'reset-before';
  else if (fires(faults.hang, rolls[3])) before = 'hang';
  else if (fires(faults.processResultFalse, rolls[4])) before = 'process-result-false';

  let after: AfterFault = 'none';
  if (fires(faults.resetAfterProcessing, rolls[5])) after = 'reset-after';
  else if (fires(faults.errorAfterProcessing, rolls[6])) after = 'error-after';

  const rejectProbability = faults.rejectMessage ?? 0;
  return {
    delayMs,
    before,
    after,
    rejectNext: () => rejectProbability > 0 && random() < rejectProbability,
  };
}
