// A clock that moves only when told (or when something sleeps until a moment): send windows
// and waits are tested without real time passing.
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

  sleepUntil = (at: number, signal?: AbortSignal): Promise<void> => {
    this.sleeps.push(at);
    if (!signal?.aborted) this.set(at);
    return Promise.resolve();
  };
}
