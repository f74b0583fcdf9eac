// Messages-per-second limit shared by every worker, plus a pause while the gateway answers 429.

import { monotonicClock, type Clock } from '../shared/clock.js';

/**
 * A token bucket refilled at `rate` tokens per second. A batch takes as many tokens as it has
 * messages and may leave the bucket in debt, so batches larger than the bucket still go out, and
 * the average rate holds. The bucket holds at most a tenth of a second of tokens, so there are
 * no bursts of a whole second's worth. Without a rate it only applies the 429 pause.
 */
export class RateLimiter {
  private tokens: number;
  private last: number;
  private pauseUntil = 0;
  private factor = 1;
  /** Waiters queue so the order of acquisition is fair between workers. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly rate: number | undefined,
    private readonly clock: Clock = monotonicClock,
  ) {
    this.last = clock.now();
    this.tokens = this.capacity;
  }

  private get effectiveRate(): number {
    return (this.rate ?? 0) * this.factor;
  }

  private get capacity(): number {
    return Math.max(1, this.effectiveRate / 10);
  }

  /** Resolves when `count` messages may be sent. */
  acquire(count: number): Promise<void> {
    const turn = this.queue.then(() => this.take(count));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async take(count: number): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      if (now < this.pauseUntil) {
        await this.clock.sleep(this.pauseUntil - now);
        continue;
      }
      if (this.rate === undefined) return;
      this.refill(now);
      if (this.tokens > 0) {
        this.tokens -= count;
        return;
      }
      await this.clock.sleep(Math.ceil((-this.tokens + 1) * (1000 / this.effectiveRate)));
    }
  }

  private refill(now: number): void {
    this.tokens = Math.min(
      this.capacity,
      this.tokens + ((now - this.last) * this.effectiveRate) / 1000,
    );
    this.last = now;
  }

  /** The gateway said 429: everyone waits `retryAfterMs`, and a set rate is halved. */
  throttled(retryAfterMs: number | undefined): void {
    this.pauseUntil = Math.max(this.pauseUntil, this.clock.now() + (retryAfterMs ?? 1000));
    this.factor = Math.max(0.05, this.factor / 2);
  }

  /** A batch went through: creep back toward the configured rate. */
  succeeded(): void {
    this.factor = Math.min(1, this.factor * 1.1);
  }

  /** The rate now in force (messages/s), for progress lines; undefined when unlimited. */
  get currentRate(): number | undefined {
    return this.rate === undefined ? undefined : this.effectiveRate;
  }
}
