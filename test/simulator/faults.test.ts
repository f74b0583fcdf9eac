// Fault injection: each fault's answer and ledger effect, seeded repeatability, run-time changes.
import { afterEach, describe, expect, it } from 'vitest';
import { decideFaults, mulberry32 } from '../../src/simulator/faults.js';
import { startSimulator, type FaultOptions, type Simulator } from '../../src/simulator/index.js';
import { messages, send, until } from './helpers.js';

const started: Simulator[] = [];
async function start(...args: Parameters<typeof startSimulator>): Promise<Simulator> {
  const sim = await startSimulator(...args);
  started.push(sim);
  return sim;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.stop()));
});

describe('refusals before processing', () => {
  it.each([
    ['unavailable', { unavailable: 1 }, 503, '1', '503'],
    ['rateLimited', { rateLimited: 1 }, 429, '1', '429'],
    [
      'unavailable with retryAfterSeconds',
      { unavailable: 1, retryAfterSeconds: 7 },
      503,
      '7',
      '503',
    ],
    [
      'rateLimited with retryAfterSeconds 0',
      { rateLimited: 1, retryAfterSeconds: 0 },
      429,
      '0',
      '429',
    ],
    ['unavailable wins over rateLimited', { unavailable: 1, rateLimited: 1 }, 503, '1', '503'],
  ] as const)(
    '%s → %i with Retry-After, nothing processed',
    async (_n, faults, status, retryAfter, outcome) => {
      const sim = await start({ faults });
      const reply = await send(sim, messages(3));
      expect(reply.status).toBe(status);
      expect(reply.headers.get('retry-after')).toBe(retryAfter);
      expect(sim.ledger).toHaveLength(0);
      expect(sim.requests[0]).toMatchObject({ outcome, messageCount: 3, accepted: 0 });
    },
  );

  it('processResultFalse → 200, ProcessResult false, nothing processed', async () => {
    const sim = await start({ faults: { processResultFalse: 1 } });
    const reply = await send(sim, messages(3));
    expect(reply.status).toBe(200);
    expect(reply.json.ProcessResult).toBe(false);
    expect(reply.json.ProcessResultDescription).toMatch(/not processed/);
    expect(reply.json.Messages).toEqual([]);
    expect(sim.ledger).toHaveLength(0);
    expect(sim.requests[0]?.outcome).toBe('process-result-false');
  });

  it('maxBatchSize → ProcessResult false naming the sizes, nothing processed', async () => {
    const sim = await start({ faults: { maxBatchSize: 3 } });
    const tooMany = await send(sim, messages(4));
    expect(tooMany.status).toBe(200);
    expect(tooMany.json).toEqual({
      ProcessResult: false,
      ProcessResultDescription: 'Too many messages in one request: 4 (maximum 3)',
      Messages: [],
    });
    expect(sim.ledger).toHaveLength(0);
    const fits = await send(sim, messages(3));
    expect(fits.json.ProcessResult).toBe(true);
    expect(sim.ledger).toHaveLength(3);
    expect(sim.requests.map((r) => r.outcome)).toEqual(['max-batch', 'ok']);
  });

  it('resetBeforeProcessing → connection reset, no ledger entry', async () => {
    const sim = await start({ faults: { resetBeforeProcessing: 1 } });
    await expect(send(sim, messages(2))).rejects.toThrow();
    expect(sim.ledger).toHaveLength(0);
    expect(sim.requests[0]?.outcome).toBe('reset-before');
  });
});

describe('failures after processing', () => {
  it('errorAfterProcessing → 500, but the messages are in the ledger', async () => {
    const sim = await start({ faults: { errorAfterProcessing: 1 } });
    const reply = await send(sim, messages(2));
    expect(reply.status).toBe(500);
    expect(reply.text).toContain('InternalServerError');
    expect(sim.ledger.map((e) => e.messageId)).toEqual(['m1', 'm2']);
    expect(sim.requests[0]).toMatchObject({ outcome: '500-after', accepted: 2 });
  });

  it('resetAfterProcessing → connection reset, but the messages are in the ledger', async () => {
    const sim = await start({ faults: { resetAfterProcessing: 1 } });
    await expect(send(sim, messages(2))).rejects.toThrow();
    expect(sim.ledger.map((e) => e.messageId)).toEqual(['m1', 'm2']);
    expect(sim.requests[0]?.outcome).toBe('reset-after');
  });
});

describe('hang and latency', () => {
  /** Starts a request and reports whether it has settled yet, without awaiting it. */
  function track(sim: Simulator) {
    const state = { settled: false, outcome: '' };
    const done = send(sim, messages(2)).then(
      () => 'answered',
      () => 'failed',
    );
    void done.then((outcome) => Object.assign(state, { settled: true, outcome }));
    return { state, done };
  }

  it('hang never answers until stop() destroys the socket', async () => {
    const sim = await start({ faults: { hang: 1 } });
    const hung = track(sim);
    await until(() => sim.requests[0]?.outcome === 'hang', 'the hung request');
    // A later request gets through on another connection while the first still waits.
    sim.setFaults({});
    expect((await send(sim, messages(1))).status).toBe(200);
    expect(hung.state.settled).toBe(false);
    expect(sim.ledger.map((e) => e.request)).toEqual([2]);
    await sim.stop();
    expect(await hung.done).toBe('failed');
  });

  it('latency holds the answer after processing; stop() releases it', async () => {
    const sim = await start({ faults: { latencyMs: 60_000 } });
    const delayed = track(sim);
    await until(() => sim.ledger.length === 2, 'the messages to be processed');
    sim.setFaults({});
    expect((await send(sim, messages(1))).status).toBe(200);
    expect(delayed.state.settled).toBe(false);
    expect(sim.requests.map((r) => r.outcome)).toEqual(['pending', 'ok']);
    await sim.stop();
    expect(await delayed.done).toBe('failed');
  });

  it('stop() is idempotent and the port is closed afterwards', async () => {
    const sim = await start();
    await Promise.all([sim.stop(), sim.stop()]);
    await sim.stop();
    await expect(send(sim, messages(1))).rejects.toThrow();
  });
});

describe('rejectMessage', () => {
  it('rejects a seeded share of otherwise valid messages with StatusCode 120', async () => {
    const sim = await start({ seed: 42, faults: { rejectMessage: 0.5 } });
    const reply = await send(sim, messages(40));
    const codes = (reply.json.Messages ?? []).map((r) => r.StatusCode);
    const rejected = codes.filter((c) => c === 120).length;
    expect(rejected).toBeGreaterThan(5);
    expect(rejected).toBeLessThan(35);
    expect(codes.every((c) => c === 0 || c === 120)).toBe(true);
    const rejectedResult = reply.json.Messages?.find((r) => r.StatusCode === 120);
    expect(rejectedResult?.StatusDescription).toBe('Rejected by simulated operator fault');
    const acceptedIds = (reply.json.Messages ?? [])
      .filter((r) => r.StatusCode === 0)
      .map((r) => r.MessageId);
    expect(sim.ledger.map((e) => e.messageId)).toEqual(acceptedIds);

    const again = await start({ seed: 42, faults: { rejectMessage: 0.5 } });
    const replay = await send(again, messages(40));
    expect((replay.json.Messages ?? []).map((r) => r.StatusCode)).toEqual(codes);
  });
});

describe('seeded repeatability', () => {
  const faults: FaultOptions = {
    unavailable: 0.15,
    rateLimited: 0.15,
    processResultFalse: 0.15,
    errorAfterProcessing: 0.15,
    rejectMessage: 0.2,
    latencyJitterMs: 3,
  };

  async function run(seed: number): Promise<string[]> {
    const sim = await start({ seed, faults });
    const trace: string[] = [];
    for (let i = 0; i < 30; i++) {
      const reply = await send(sim, messages(5, `s${i}-`)).catch(() => undefined);
      const codes =
        reply?.status === 200 ? (reply.json.Messages ?? []).map((r) => r.StatusCode) : [];
      trace.push(`${reply?.status ?? 'error'}:${codes.join(',')}`);
    }
    trace.push(`ledger:${sim.ledger.map((e) => e.messageId).join(',')}`);
    return trace;
  }

  it('gives the same decisions for the same seed and request order', async () => {
    const first = await run(7);
    const second = await run(7);
    expect(second).toEqual(first);
    // The trace must actually exercise the dice, or equality proves nothing.
    const statuses = new Set(first.slice(0, -1).map((t) => t.split(':')[0]));
    expect(statuses).toEqual(new Set(['200', '429', '500', '503']));
    expect(first.some((t) => t.includes('120'))).toBe(true);
  });

  it('gives different decisions for another seed', async () => {
    expect(await run(8)).not.toEqual(await run(7));
  });

  it('decides per request from (seed, seq), whatever the timing', () => {
    const a = decideFaults(faults, 3, 17);
    const b = decideFaults(faults, 3, 17);
    expect([a.delayMs, a.before, a.after]).toEqual([b.delayMs, b.before, b.after]);
    const draws = (d: typeof a) => Array.from({ length: 20 }, () => d.rejectNext());
    expect(draws(a)).toEqual(draws(b));
    const random = mulberry32(1);
    const values = Array.from({ length: 1000 }, () => random());
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(new Set(values).size).toBe(1000);
  });
});

describe('settings', () => {
  it('setFaults changes the behaviour for the next requests', async () => {
    const sim = await start();
    expect((await send(sim, messages(1))).status).toBe(200);
    sim.setFaults({ unavailable: 1, retryAfterSeconds: 3 });
    const refused = await send(sim, messages(1));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('3');
    sim.setFaults({});
    expect((await send(sim, messages(1))).status).toBe(200);
    expect(sim.requests.map((r) => r.outcome)).toEqual(['ok', '503', 'ok']);
  });

  it.each([
    { unavailable: 1.5 },
    { rejectMessage: -0.1 },
    { hang: Number.NaN },
    { latencyMs: -1 },
    { retryAfterSeconds: 1.5 },
    { maxBatchSize: 0 },
    { authStatus: 500 as never },
  ])('refuses %o', async (bad: FaultOptions) => {
    await expect(startSimulator({ faults: bad })).rejects.toThrow(RangeError);
    const sim = await start();
    expect(() => sim.setFaults(bad)).toThrow(RangeError);
  });
});
