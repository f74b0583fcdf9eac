// The test clocks, each a Clock of src/shared/clock.ts: time moves only when told or when something
// sleeps, so windows, waits, retries and the rate limit are tested without real time passing.
import type { Clock } from '../../src/shared/clock.js';

export class FakeClock implements Clock {
  /** The moments sleepUntil was asked to wait for, in order. */
  readonly sleeps: number[] = [];
  constructor(private time: number) {}

  now = (): number => this.time;

  /** Sets the time; it never goes back. */
  set(at: number): void {
    this.time = Math.max(this.time, at);
  }

  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    this.sleepUntil(this.time + ms, signal);

  sleepUntil = (at: number, signal?: AbortSignal): Promise<void> => {
    this.sleeps.push(at);
    if (!signal?.aborted) this.set(at);
    return Promise.resolve();
  };
}

/** A clock whose sleep returns at once after moving time forward: virtual time, no waiting. */
export class InstantClock implements Clock {
  time = 0;
  /** Every sleep's length, in order (into the caller's list when given one). */
  constructor(readonly sleeps: number[] = []) {}
  now(): number {
    return this.time;
  }
  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.time += Math.max(0, ms);
    return Promise.resolve();
  }
  sleepUntil(at: number): Promise<void> {
    return this.sleep(at - this.time);
  }
}

/** A clock that only moves when the test says so; sleepers wake in time order. */
export class ManualClock implements Clock {
  time = 0;
  private timers: { at: number; resolve: () => void }[] = [];
  now(): number {
    return this.time;
  }
  sleep(ms: number): Promise<void> {
    return this.sleepUntil(this.time + Math.max(0, ms));
  }
  sleepUntil(at: number): Promise<void> {
    return new Promise((resolve) => this.timers.push({ at, resolve }));
  }
  /** Moves time forward by `ms`, waking each sleeper due on the way at its own instant. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settled();
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.time = next.at;
      next.resolve();
    }
    this.time = end;
    await settled();
  }
  get sleepers(): number {
    return this.timers.length;
  }
}

/** Lets every pending promise continuation and I/O callback run. */
function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
