// The send pipeline in-process against the simulator with each fault switched on: every record is
// reported exactly once, the gateway's ledger never holds a message twice, retried faults recover
// and ambiguous ones end `unknown`. The report must agree with the simulator's own record of each
// request, so these tests prove the outcomes true, not just present.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock } from '../../src/shared/clock.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Answer } from '../../src/gateway/outcome.js';
import { GatewayClient } from '../../src/gateway/client.js';
import { ReportSink } from '../../src/report/sink.js';
import { openReport } from '../../src/report/writer.js';
import { SendEmitter, type RetryNotice } from '../../src/send/events.js';
import { RateLimiter } from '../../src/send/rate.js';
import { sendLoop } from '../../src/send/send.js';
import type { Poster, SendOutcome } from '../../src/send/types.js';
import { startSimulator, type FaultOptions, type Simulator } from '../../src/simulator/index.js';
import { InstantClock } from '../helpers/clock.js';
import { parseCsv, tempDir } from '../helpers/files.js';
import {
  AMBIGUOUS,
  countOutcomes,
  expectedOutcomes,
  messageEntries,
  promiseBreaches,
  streamOf,
} from '../helpers/reliability.js';

const USERNAME = 'acme';
const PASSWORD = 'faults-pw';
const RECORDS = 300;
const BATCH = 10;

let dir: Awaited<ReturnType<typeof tempDir>>;
let sims: Simulator[] = [];

beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await Promise.all(sims.map((sim) => sim.stop()));
  sims = [];
  await dir.remove();
});

async function simulator(faults: FaultOptions, seed = 7): Promise<Simulator> {
  const sim = await startSimulator({
    faults,
    seed,
    credentials: { username: USERNAME, password: PASSWORD },
  });
  sims.push(sim);
  return sim;
}

function client(sim: Simulator, timeoutMs = 10_000, connections = 4): GatewayClient {
  return new GatewayClient(
    { endpoint: sim.url, username: USERNAME, password: PASSWORD },
    { concurrency: connections, timeoutMs, proxies: {} },
    systemClock,
  );
}

/** Wraps a Poster to see each exchange as it returns (e.g. to switch a fault off). */
function watching(inner: Poster, onAnswer: (answer: Answer, n: number) => void): Poster {
  let n = 0;
  return {
    async post(messages, ids, signal) {
      const answer = await inner.post(messages, ids, signal);
      onAnswer(answer, ++n);
      return answer;
    },
  };
}

interface Sent {
  rows: Record<string, string>[];
  outcome: SendOutcome;
  retries: RetryNotice[];
  sleeps: number[];
}

/**
 * Sends RECORDS messages with sendLoop() and a real GatewayClient, writing the real CSV report, with
 * sleeps injected (recorded, instant) so Retry-After and backoff cost no time. The breaker is set
 * out of reach unless a test needs it: with faults drawn at random it would otherwise decide how
 * much gets sent, and the breaker has its own tests.
 */
async function sendThrough(
  sim: Simulator,
  options: {
    count?: number;
    batchSize?: number;
    concurrency?: number;
    retries?: number;
    timeoutMs?: number;
    /** 'default' leaves sendLoop() its own breaker (5 in a row). */
    maxConsecutiveFailures?: number | 'default';
    wrap?: (poster: Poster) => Poster;
  } = {},
): Promise<Sent> {
  const count = options.count ?? RECORDS;
  const concurrency = options.concurrency ?? 4;
  const gateway = client(sim, options.timeoutMs, concurrency);
  const reportPath = join(dir.path, 'report.csv');
  const sink = new ReportSink(await openReport(reportPath, { force: true }));
  const events = new SendEmitter();
  const retries: RetryNotice[] = [];
  const sleeps: number[] = [];
  events.on('record', (row) => sink.add(row));
  events.on('batch', () => void sink.flush());
  events.on('retry', (retry) => retries.push(retry));
  let outcome: SendOutcome;
  try {
    const settings = {
      batchSize: options.batchSize ?? BATCH,
      concurrency,
      retries: options.retries ?? 10,
      outageGraceMs: 0,
    };
    outcome = await sendLoop(
      streamOf(messageEntries(count, 'f')),
      { settings, choices: {}, io: { events, clock: new InstantClock(sleeps) } },
      {
        poster: options.wrap ? options.wrap(gateway) : gateway,
        maxConsecutiveFailures:
          options.maxConsecutiveFailures === 'default'
            ? undefined
            : (options.maxConsecutiveFailures ?? 1_000_000),
        limiter: new RateLimiter(undefined, new InstantClock()),
      },
    );
  } finally {
    await sink.close();
    await gateway.close();
  }
  const rows = parseCsv(await readFile(reportPath, 'utf8'));
  return { rows, outcome, retries, sleeps };
}

/**
 * Each ledger entry was accepted by a request the simulator processed; the report must say
 * `accepted` (same TransactionId) when that request was answered, and `unknown` when its answer
 * was lost (reset or 500 after processing).
 */
function ledgerDisagreements(rows: readonly Record<string, string>[], sim: Simulator): string[] {
  const bySeq = new Map(sim.requests.map((r) => [r.seq, r]));
  const byId = new Map(rows.map((r) => [r.messageId, r]));
  const problems: string[] = [];
  for (const entry of sim.ledger) {
    const request = bySeq.get(entry.request);
    const row = byId.get(entry.messageId);
    const expected = request?.outcome === 'ok' ? 'accepted' : 'unknown';
    if (!request || !['ok', 'reset-after', '500-after'].includes(request.outcome)) {
      problems.push(
        `${entry.messageId} accepted by request ${entry.request} (${request?.outcome})`,
      );
    } else if (row?.outcome !== expected) {
      problems.push(
        `${entry.messageId}: request ${request.seq} was ${request.outcome}, report says ${row?.outcome}`,
      );
    }
  }
  return problems.slice(0, 25);
}

/** Messages carried by every request together: equals the records when nothing was resent. */
const carried = (sim: Simulator) => sim.requests.reduce((sum, r) => sum + r.messageCount, 0);

const requestsWith = (sim: Simulator, outcome: string) =>
  sim.requests.filter((r) => r.outcome === outcome).length;

/** The checks every fault test makes. */
function expectPromiseKept(sent: Sent, sim: Simulator, count = RECORDS): void {
  expect(promiseBreaches(sent.rows, count, sim.ledger)).toEqual([]);
  expect(ledgerDisagreements(sent.rows, sim)).toEqual([]);
  expect(countOutcomes(sent.rows)).toEqual(expectedOutcomes(sim.requests));
}

describe('faults against the simulator, one at a time', () => {
  it('without faults: every record accepted once (the checks themselves are sound)', async () => {
    const sim = await simulator({});
    const sent = await sendThrough(sim);
    expectPromiseKept(sent, sim);
    expect(countOutcomes(sent.rows)).toEqual({ accepted: RECORDS });
    expect(sim.ledger).toHaveLength(RECORDS);
    expect(carried(sim)).toBe(RECORDS);
  });

  it('503 with Retry-After: retried after the delay it names, and every record recovers', async () => {
    // Every request fails with 503 until six answers have come back, then the gateway recovers.
    const sim = await simulator({ unavailable: 1, retryAfterSeconds: 2 });
    const sent = await sendThrough(sim, {
      wrap: (poster) => watching(poster, (_answer, n) => n === 6 && sim.setFaults({})),
    });
    expectPromiseKept(sent, sim);
    expect(countOutcomes(sent.rows)).toEqual({ accepted: RECORDS });
    expect(requestsWith(sim, '503')).toBeGreaterThanOrEqual(6);
    expect(sent.retries).toHaveLength(requestsWith(sim, '503'));
    expect(sent.retries.every((r) => r.delayMs === 2_000 && r.reason === 'HTTP 503')).toBe(true);
    expect(sent.rows.some((r) => Number(r.attempts) > 1)).toBe(true);
    expect(sim.ledger).toHaveLength(RECORDS);
  });

  it('429 with Retry-After: retried after the delay it names, and every record recovers', async () => {
    const sim = await simulator({ rateLimited: 0.3, retryAfterSeconds: 3 }, 11);
    const sent = await sendThrough(sim);
    expectPromiseKept(sent, sim);
    expect(countOutcomes(sent.rows)).toEqual({ accepted: RECORDS });
    expect(requestsWith(sim, '429')).toBeGreaterThan(0);
    expect(sent.retries).toHaveLength(requestsWith(sim, '429'));
    expect(sent.retries.every((r) => r.delayMs === 3_000 && r.reason === 'HTTP 429')).toBe(true);
    expect(sim.ledger).toHaveLength(RECORDS);
  });

  it.each([
    ['resetBeforeProcessing', 'reset-before'],
    ['resetAfterProcessing', 'reset-after'],
  ] as const)(
    'reset (%s): the client cannot tell before from after, so the batch is unknown and not resent',
    async (fault, outcome) => {
      const sim = await simulator({ [fault]: 0.3 }, 5);
      const sent = await sendThrough(sim);
      expectPromiseKept(sent, sim);
      expect(requestsWith(sim, outcome)).toBeGreaterThan(0);
      expect(carried(sim)).toBe(RECORDS); // nothing was sent twice, not even what was never processed
      expect(sent.retries).toEqual([]);
      const unknown = sent.rows.filter((r) => r.outcome === 'unknown');
      expect(unknown.length).toBeGreaterThan(0);
      for (const row of unknown)
        expect(row.error).toMatch(/^connection .+ after the request was sent$/);
    },
  );

  it('hang: the request times out, its batch is unknown, and the run goes on', async () => {
    const sim = await simulator({ hang: 0.15 }, 3);
    // A second, not less: a loaded machine must not time out a request that was answered.
    const sent = await sendThrough(sim, { timeoutMs: 1_000 });
    expectPromiseKept(sent, sim);
    expect(requestsWith(sim, 'hang')).toBeGreaterThan(0);
    expect(carried(sim)).toBe(RECORDS);
    const unknown = sent.rows.filter((r) => r.outcome === 'unknown');
    expect(unknown).toHaveLength(requestsWith(sim, 'hang') * BATCH);
    // A hung request was never processed: the gateway does not have those messages.
    const ledgerIds = new Set(sim.ledger.map((e) => e.messageId));
    expect(unknown.filter((r) => ledgerIds.has(r.messageId!))).toEqual([]);
  });

  it('500 after processing: unknown, not resent, although the gateway has the messages', async () => {
    const sim = await simulator({ errorAfterProcessing: 0.3 }, 9);
    const sent = await sendThrough(sim);
    expectPromiseKept(sent, sim);
    expect(requestsWith(sim, '500-after')).toBeGreaterThan(0);
    expect(carried(sim)).toBe(RECORDS);
    expect(sent.retries).toEqual([]);
    const unknown = sent.rows.filter((r) => r.outcome === 'unknown');
    expect(unknown).toHaveLength(requestsWith(sim, '500-after') * BATCH);
    expect(sim.ledger).toHaveLength(RECORDS); // accepted + unknown: all of them reached it
  });

  it('ProcessResult false: failed (the gateway took nothing), not retried', async () => {
    const sim = await simulator({ processResultFalse: 0.3 }, 13);
    const sent = await sendThrough(sim);
    expectPromiseKept(sent, sim);
    expect(requestsWith(sim, 'process-result-false')).toBeGreaterThan(0);
    expect(carried(sim)).toBe(RECORDS);
    const failed = sent.rows.filter((r) => r.outcome === 'failed');
    expect(failed).toHaveLength(requestsWith(sim, 'process-result-false') * BATCH);
    for (const row of failed) expect(row.error).toContain('Simulated fault');
    expect(sim.ledger).toHaveLength(RECORDS - failed.length);
  });

  it('per-message rejection: rejected with StatusCode 120 and its description, the rest accepted', async () => {
    const sim = await simulator({ rejectMessage: 0.2 }, 17);
    const sent = await sendThrough(sim);
    expectPromiseKept(sent, sim);
    const rejected = sent.rows.filter((r) => r.outcome === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    for (const row of rejected) {
      expect(row).toMatchObject({
        statusCode: '120',
        statusDescription: 'Rejected by simulated operator fault',
      });
      expect(row.transactionId).not.toBe('');
    }
    expect(sim.ledger).toHaveLength(RECORDS - rejected.length);
    expect(carried(sim)).toBe(RECORDS);
  });

  it('max batch size: batches within it all go through', async () => {
    const sim = await simulator({ maxBatchSize: 25 });
    const sent = await sendThrough(sim, { batchSize: 25 });
    expectPromiseKept(sent, sim);
    expect(countOutcomes(sent.rows)).toEqual({ accepted: RECORDS });
    expect(Math.max(...sim.requests.map((r) => r.messageCount))).toBe(25);
  });

  it('max batch size: larger batches are refused, reported failed, and the breaker stops the run', async () => {
    const sim = await simulator({ maxBatchSize: 20 });
    const concurrency = 3;
    // The production breaker (5 in a row), as a real run has it.
    const sent = await sendThrough(sim, {
      batchSize: 25,
      concurrency,
      maxConsecutiveFailures: 'default',
    });
    expect(promiseBreaches(sent.rows, RECORDS, sim.ledger)).toEqual([]);
    expect(countOutcomes(sent.rows)).toEqual({ failed: RECORDS });
    expect(sim.ledger).toEqual([]);
    expect(sent.outcome.stopped?.authRefused).toBe(false);
    expect(sent.outcome.stopped?.reason).toContain('Too many messages in one request: 25');
    // It stopped early: five refusals, plus what the other workers already had in hand.
    expect(requestsWith(sim, 'max-batch')).toBe(sim.requests.length);
    expect(sim.requests.length).toBeLessThan(RECORDS / 25);
    const refused = sent.rows.filter((r) => r.attempts === '1');
    expect(refused).toHaveLength(sim.requests.length * 25);
    for (const row of refused) expect(row.error).toContain('Too many messages');
  });

  it('everything at once, with several workers: the report matches the gateway request for request', async () => {
    const sim = await simulator(
      {
        unavailable: 0.1,
        rateLimited: 0.1,
        retryAfterSeconds: 1,
        resetBeforeProcessing: 0.05,
        resetAfterProcessing: 0.05,
        hang: 0.05,
        processResultFalse: 0.05,
        errorAfterProcessing: 0.05,
        rejectMessage: 0.05,
        latencyMs: 2,
        latencyJitterMs: 5,
      },
      2024,
    );
    const sent = await sendThrough(sim, { count: 600, concurrency: 6, timeoutMs: 1_000 });
    expectPromiseKept(sent, sim, 600);
    const counts = countOutcomes(sent.rows);
    for (const outcome of ['accepted', 'rejected', 'unknown', 'failed']) {
      expect(counts[outcome], outcome).toBeGreaterThan(0);
    }
    for (const outcome of AMBIGUOUS) expect(requestsWith(sim, outcome), outcome).toBeGreaterThan(0);
    // Only 503 and 429 were sent again: every other request carried its messages once.
    const retried = sim.requests.filter((r) => r.outcome === '503' || r.outcome === '429');
    expect(carried(sim) - retried.reduce((sum, r) => sum + r.messageCount, 0)).toBe(600);
  });
});
