// RateLimiter: the token bucket, the 429 pause and the halving, on a fake clock (no real sleeping).
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/send/rate.js';
import { InstantClock, ManualClock } from '../helpers/clock.js';
import { settle } from '../helpers/reliability.js';

/** Acquires each size in turn and records when (virtual ms) each was granted. */
async function grants(limiter: RateLimiter, clock: InstantClock, sizes: number[]) {
  const at: { time: number; size: number; before: number }[] = [];
  let before = 0;
  for (const size of sizes) {
    await limiter.acquire(size);
    at.push({ time: clock.now(), size, before });
    before += size;
  }
  return at;
}

/** Seeded sizes so a failure replays the same way. */
function seededSizes(count: number, max: number, seed: number): number[] {
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return 1 + (state % max);
  });
}

describe('RateLimiter without a rate', () => {
  it('never waits and reports no rate', async () => {
    const clock = new InstantClock();
    const limiter = new RateLimiter(undefined, clock);
    for (let i = 0; i < 5_000; i++) await limiter.acquire(100);
    expect(clock.sleeps).toEqual([]);
    expect(clock.time).toBe(0);
    expect(limiter.currentRate).toBeUndefined();
  });

  it('still pauses everyone for Retry-After once the gateway says 429', async () => {
    const clock = new InstantClock();
    const limiter = new RateLimiter(undefined, clock);
    limiter.throttled(2_000);
    await limiter.acquire(1);
    expect(clock.time).toBe(2_000);
    await limiter.acquire(1);
    await limiter.acquire(1);
    expect(clock.sleeps).toEqual([2_000]);
    expect(limiter.currentRate).toBeUndefined();
  });

  it('pauses one second when the 429 named no Retry-After, and not at all for Retry-After: 0', async () => {
    const clock = new InstantClock();
    const limiter = new RateLimiter(undefined, clock);
    limiter.throttled(undefined);
    await limiter.acquire(1);
    expect(clock.time).toBe(1_000);
    limiter.throttled(0);
    await limiter.acquire(1);
    expect(clock.time).toBe(1_000);
  });

  it('keeps the longest of overlapping pauses', async () => {
    const clock = new InstantClock();
    const limiter = new RateLimiter(undefined, clock);
    limiter.throttled(5_000);
    limiter.throttled(1_000);
    await limiter.acquire(1);
    expect(clock.time).toBe(5_000);
  });
});

describe('RateLimiter token bucket', () => {
  it('sends N messages at R per second in (N - R/10) / R seconds of virtual time', async () => {
    const clock = new InstantClock();
    const limiter = new RateLimiter(100, clock);
    await grants(limiter, clock, Array<number>(1_000).fill(1));
    // The bucket starts with a tenth of a second's worth (10); the other 990 come 10 ms apart.
    expect(clock.time).toBe(9_900);
    expect(clock.sleeps.every((ms) => ms === 10)).toBe(true);
  });

  it.each([37, 250, 1_000])(
    'at %d/s each message is granted neither early nor late (single messages)',
    async (rate) => {
      const clock = new InstantClock();
      const limiter = new RateLimiter(rate, clock);
      const capacity = Math.max(1, rate / 10);
      const granted = await grants(limiter, clock, Array<number>(rate * 3).fill(1));
      for (const [i, g] of granted.entries()) {
        const k = i + 1;
        // Never early: before the k-th grant at most capacity + rate × t were taken.
        expect(g.before).toBeLessThanOrEqual(capacity + (rate * g.time) / 1000 + 1e-9);
        // Never late: the bucket does not fall behind the rate (1 ms of rounding allowed).
        expect(g.time).toBeLessThanOrEqual(Math.max(0, ((k - capacity) * 1000) / rate) + 1);
      }
      const last = granted.at(-1)!;
      expect(last.time).toBeGreaterThanOrEqual(((rate * 3 - 1 - capacity) * 1000) / rate - 1e-6);
    },
  );

  it('allows no more than a second plus a tenth of a second worth in any one-second window', async () => {
    const rate = 200;
    const clock = new InstantClock();
    const limiter = new RateLimiter(rate, clock);
    const granted = await grants(limiter, clock, Array<number>(1_000).fill(1));
    let start = 0;
    for (let end = 0; end < granted.length; end++) {
      while (granted[start]!.time <= granted[end]!.time - 1_000) start++;
      expect(end - start + 1).toBeLessThanOrEqual(rate + rate / 10);
    }
  });

  it('after a long idle spell lets through only a tenth of a second worth at once', async () => {
    const clock = new InstantClock();
    const limiter = new RateLimiter(1_000, clock);
    await grants(limiter, clock, Array<number>(500).fill(1));
    clock.time += 60_000; // idle for a minute: the bucket must not have filled to 60,000 tokens
    const idleEnd = clock.time;
    const sleepsBefore = clock.sleeps.length;
    const granted = await grants(limiter, clock, Array<number>(150).fill(1));
    const immediate = granted.filter((g) => g.time === idleEnd).length;
    expect(immediate).toBe(100);
    expect(clock.sleeps.length).toBeGreaterThan(sleepsBefore);
  });

  it('holds at least one token, so a rate under 10/s still sends one message at once', async () => {
    const clock = new InstantClock();
    const limiter = new RateLimiter(2, clock);
    const granted = await grants(limiter, clock, [1, 1, 1]);
    expect(granted.map((g) => g.time)).toEqual([0, 500, 1_000]);
  });

  it('lets a batch larger than the bucket go, and makes the next one repay the debt', async () => {
    const clock = new InstantClock();
    const limiter = new RateLimiter(100, clock);
    await limiter.acquire(500);
    expect(clock.time).toBe(0);
    await limiter.acquire(1);
    // 500 taken from 10 tokens leaves a debt of 490; one more token needs 491 tokens' time.
    expect(clock.time).toBe(4_910);
  });

  it('with mixed batch sizes never runs ahead of the rate, and keeps up with it', async () => {
    const rate = 500;
    const capacity = rate / 10;
    const clock = new InstantClock();
    const limiter = new RateLimiter(rate, clock);
    const granted = await grants(limiter, clock, seededSizes(400, 120, 7));
    let previous = 0;
    for (const g of granted) {
      expect(g.before).toBeLessThanOrEqual(capacity + (rate * g.time) / 1000 + 1e-9);
      // Waiting happens only while in debt, and only until one token is back (1 ms rounding).
      expect(g.time).toBeLessThanOrEqual(
        Math.max(previous, ((g.before - capacity + 1) * 1000) / rate + 1),
      );
      previous = g.time;
    }
  });

  it('grants waiting workers in the order they asked', async () => {
    const clock = new InstantClock();
    const limiter = new RateLimiter(10, clock);
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c', 'd'].map((name, i) =>
        limiter.acquire(i === 0 ? 5 : 1).then(() => order.push(name)),
      ),
    );
    expect(order).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('RateLimiter under 429', () => {
  it('halves the rate on each 429, down to a twentieth, and creeps back by 10% per success', () => {
    const limiter = new RateLimiter(100, new InstantClock());
    expect(limiter.currentRate).toBe(100);
    limiter.throttled(0);
    expect(limiter.currentRate).toBe(50);
    limiter.throttled(0);
    expect(limiter.currentRate).toBe(25);
    for (let i = 0; i < 20; i++) limiter.throttled(0);
    expect(limiter.currentRate).toBeCloseTo(5, 10);
    limiter.succeeded();
    expect(limiter.currentRate).toBeCloseTo(5.5, 10);
    for (let i = 0; i < 100; i++) limiter.succeeded();
    expect(limiter.currentRate).toBe(100);
  });

  it('sends at the halved rate after a 429, with a halved bucket', async () => {
    const clock = new InstantClock();
    const limiter = new RateLimiter(100, clock);
    limiter.throttled(0);
    await grants(limiter, clock, Array<number>(200).fill(1));
    // 50/s: 5 at once (a tenth of a second at the new rate), then one every 20 ms.
    expect(clock.time).toBe((200 - 5) * 20);
  });

  it('pauses for Retry-After before granting, even with tokens in the bucket', async () => {
    const clock = new InstantClock();
    const limiter = new RateLimiter(100, clock);
    limiter.throttled(3_000);
    await limiter.acquire(1);
    expect(clock.time).toBe(3_000);
    expect(clock.sleeps[0]).toBe(3_000);
  });

  it('a worker already waiting for tokens also honours a pause that starts meanwhile', async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter(10, clock);
    await limiter.acquire(1); // the bucket (one token) is now empty
    const granted: Record<string, number> = {};
    void limiter.acquire(1).then(() => (granted.second = clock.now()));
    void limiter.acquire(1).then(() => (granted.third = clock.now()));
    await clock.advance(50);
    expect(clock.sleepers).toBe(1); // the second waits 100 ms for a token
    limiter.throttled(2_000); // at t=50: nobody sends before t=2050, and the rate halves to 5/s
    await clock.advance(1_999);
    expect(granted).toEqual({});
    await clock.advance(1);
    expect(granted).toEqual({ second: 2_050 });
    await clock.advance(1_000);
    expect(granted).toEqual({ second: 2_050, third: 2_250 });
    await settle();
  });
});
