// The one clock: wall time and waits for the send loop, its rate limit, send windows and locks,
// injectable so tests need no real waits.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves once `now()` reaches `at`, or at once when `signal` is (or becomes) aborted. */
  sleepUntil(at: number, signal?: AbortSignal): Promise<void>;
  /** Resolves after `ms`, or at once when `signal` is (or becomes) aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** setTimeout takes at most a signed 32-bit delay; longer waits are taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, Math.min(Math.max(0, ms), MAX_TIMER_MS));
      signal?.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
    }),
  async sleepUntil(at, signal) {
    // A laptop that slept, or a clock that was set, is caught up with by looking again.
    while (!signal?.aborted && Date.now() < at) {
      await systemClock.sleep(at - Date.now(), signal);
    }
  },
};

/**
 * The same clock for intervals (the rate limit's pauses and refills): its time never goes back
 * when the wall clock is set, so a pause never grows by the amount the clock was set back.
 */
export const monotonicClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => systemClock.sleep(ms, signal),
  async sleepUntil(at, signal) {
    while (!signal?.aborted && performance.now() < at) {
      await systemClock.sleep(at - performance.now(), signal);
    }
  },
};
