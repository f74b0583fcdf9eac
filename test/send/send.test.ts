// sendLoop(): the loop of batches, workers, retries, breaker, signals and hooks, driven by a scripted
// Poster and an injected Clock, so every decision is visible and nothing waits for real.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/gateway/exchange.js';
import { answerOf, type Answer } from '../../src/gateway/outcome.js';
import type { RowResult } from '../../src/message/outcome.js';
import { SendEmitter, type BatchReport, type RetryNotice } from '../../src/send/events.js';
import { RateLimiter } from '../../src/send/rate.js';
import { sendLoop } from '../../src/send/send.js';
import type { LoopGateway, LoopRun, Poster } from '../../src/send/types.js';
import type { Entry } from '../../src/validate/entries.js';
import { systemClock, type Clock } from '../../src/shared/clock.js';
import { InstantClock } from '../helpers/clock.js';
import { messageEntries, settle, streamOf } from '../helpers/reliability.js';

const SECRET = 'hunter2-secret';

interface Call {
  n: number;
  ids: string[];
  signal?: AbortSignal;
}

/** A Poster whose answers come from a script; it records every request it was given. */
class ScriptedPoster implements Poster {
  readonly calls: string[][] = [];
  inFlight = 0;
  maxInFlight = 0;
  constructor(
    private readonly script: (call: Call) => Exchange | Promise<Exchange>,
    private readonly log?: string[],
  ) {}

  async post(
    messages: readonly string[],
    messageIds: readonly string[],
    signal?: AbortSignal,
  ): Promise<Answer> {
    const ids = messages.map((m) => (JSON.parse(m) as { MessageId: string }).MessageId);
    expect(messageIds).toEqual(ids);
    this.calls.push(ids);
    this.log?.push(`post ${ids.join(',')}`);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      // What the gateway client does with every exchange: classify it, mask the secret.
      const exchange = await this.script({ n: this.calls.length, ids, signal });
      return answerOf(exchange, ids, Date.now(), (text) => text.split(SECRET).join('***'));
    } finally {
      this.inFlight--;
    }
  }
}

function response(
  status: number,
  body: unknown = '',
  headers: Record<string, string> = {},
): Exchange {
  return {
    kind: 'response',
    status,
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    latencyMs: 1,
  };
}

function accepted(ids: readonly string[]): Exchange {
  return response(200, {
    ProcessResult: true,
    Messages: ids.map((id) => ({
      StatusCode: 0,
      StatusDescription: 'Accepted',
      MessageId: id,
      TransactionId: `tx-${id}`,
    })),
  });
}

function refused(description: string): Exchange {
  return response(200, {
    ProcessResult: false,
    ProcessResultDescription: description,
    Messages: [],
  });
}

function networkError(code: string, requestSent: boolean): Exchange {
  return { kind: 'error', code, message: `${code} happened`, latencyMs: 1, requestSent };
}

interface Run {
  records: RowResult[];
  byRow: Map<number, RowResult>;
  batches: BatchReport[];
  retries: RetryNotice[];
  stops: { reason: string; authRefused: boolean }[];
  sleeps: number[];
  outcome: Awaited<ReturnType<typeof sendLoop>>;
}

/** A test's options for one loop: the run's part and the gateway's, given flat. */
type LoopOptions = Partial<LoopRun['settings']> &
  LoopGateway & {
    retryUnknown?: boolean;
    clock?: Clock;
    stopSignal?: AbortSignal;
    abortSignal?: AbortSignal;
  };

/** Runs sendLoop() with instant sleeps and an instant-clock limiter unless the test brings its own. */
async function run(
  entries: Entry[],
  options: LoopOptions,
  events = new SendEmitter(),
): Promise<Run> {
  const records: RowResult[] = [];
  const batches: BatchReport[] = [];
  const retries: RetryNotice[] = [];
  const stops: Run['stops'] = [];
  const sleeps: number[] = [];
  events.on('record', (row) => records.push(row));
  events.on('batch', (batch) => batches.push(batch));
  events.on('retry', (retry) => retries.push(retry));
  events.on('stop', (stop) => stops.push(stop));
  const { retryUnknown, clock, stopSignal, abortSignal, ...rest } = options;
  const settings = { batchSize: 2, concurrency: 1, retries: 3, outageGraceMs: 0, ...rest };
  const loop: LoopRun = {
    settings,
    choices: { retryUnknown },
    io: { events, clock: clock ?? new InstantClock(sleeps), stop: stopSignal, abort: abortSignal },
  };
  const outcome = await sendLoop(streamOf(entries), loop, {
    limiter: new RateLimiter(undefined, new InstantClock()),
    random: () => 0.5,
    ...rest,
  });
  const byRow = new Map(records.map((r) => [r.row, r]));
  return { records, byRow, batches, retries, stops, sleeps, outcome };
}

/** Each of rows 1..count reported exactly once. */
function expectEachRowOnce(records: readonly RowResult[], count: number): void {
  expect(records.map((r) => r.row).sort((a, b) => a - b)).toEqual(
    Array.from({ length: count }, (_, i) => i + 1),
  );
}

const outcomes = (r: Run) => r.records.map((x) => x.outcome);

describe('sendLoop: the happy path', () => {
  it('sends each batch once and reports every record with its TransactionId', async () => {
    const poster = new ScriptedPoster(({ ids }) => accepted(ids));
    const r = await run(messageEntries(7, 'm'), { poster, batchSize: 3, concurrency: 2 });
    expect(poster.calls).toHaveLength(3);
    expect(poster.calls.flat().sort()).toEqual(
      messageEntries(7, 'm')
        .map((e) => e.messageId)
        .sort(),
    );
    expectEachRowOnce(r.records, 7);
    for (const row of r.records) {
      expect(row).toMatchObject({ outcome: 'accepted', statusCode: 0, attempts: 1 });
      expect(row.transactionId).toBe(`tx-${row.messageId}`);
    }
    expect(r.outcome).toEqual({ stopped: undefined, interrupted: false, notSent: 0 });
    expect(r.sleeps).toEqual([]);
  });

  it('reports records decided beforehand (invalid, skipped) without sending them', async () => {
    const entries: Entry[] = [
      {
        kind: 'final',
        row: 1,
        to: '',
        messageId: 'x-1',
        result: { outcome: 'invalid', error: 'to: not a phone number' },
      },
      ...messageEntries(2, 'm', 2),
      { kind: 'final', row: 4, to: '4741000004', messageId: 'x-4', result: { outcome: 'skipped' } },
    ];
    const poster = new ScriptedPoster(({ ids }) => accepted(ids));
    const r = await run(entries, { poster });
    expect(poster.calls).toEqual([['m-2', 'm-3']]);
    expectEachRowOnce(r.records, 4);
    expect(r.byRow.get(1)).toMatchObject({ outcome: 'invalid', attempts: 0 });
    expect(r.byRow.get(4)).toMatchObject({ outcome: 'skipped', attempts: 0 });
  });

  it('never has more requests in flight than the concurrency', async () => {
    const poster = new ScriptedPoster(async ({ ids }) => {
      await settle();
      return accepted(ids);
    });
    const r = await run(messageEntries(60, 'm'), { poster, batchSize: 3, concurrency: 4 });
    expect(poster.maxInFlight).toBe(4);
    expectEachRowOnce(r.records, 60);
  });
});

describe('sendLoop: retries', () => {
  it('retries a 503 after its Retry-After, then reports the recovered batch accepted', async () => {
    const poster = new ScriptedPoster(({ n, ids }) =>
      n === 1 ? response(503, 'busy', { 'retry-after': '2' }) : accepted(ids),
    );
    const r = await run(messageEntries(2, 'm'), { poster });
    expect(poster.calls).toEqual([
      ['m-1', 'm-2'],
      ['m-1', 'm-2'],
    ]);
    expect(r.sleeps).toEqual([2_000]);
    expect(r.retries).toEqual([{ batch: 1, attempt: 1, delayMs: 2_000, reason: 'HTTP 503' }]);
    expect(r.records.map((x) => [x.outcome, x.attempts])).toEqual([
      ['accepted', 2],
      ['accepted', 2],
    ]);
    expect(r.batches).toMatchObject([{ batch: 1, attempts: 2, verdict: 'results' }]);
  });

  it('without Retry-After backs off exponentially (full jitter, random injected)', async () => {
    const poster = new ScriptedPoster(({ n, ids }) => (n <= 3 ? response(503) : accepted(ids)));
    const r = await run(messageEntries(2, 'm'), { poster, random: () => 0.5 });
    expect(r.sleeps).toEqual([250, 500, 1_000]);
    expect(r.records.every((x) => x.outcome === 'accepted' && x.attempts === 4)).toBe(true);
  });

  it.each<[string, Exchange]>([
    ['429', response(429, '', { 'retry-after': '1' })],
    ['408', response(408)],
    ['ECONNREFUSED', networkError('ECONNREFUSED', false)],
    ['ENOTFOUND', networkError('ENOTFOUND', false)],
    ['UND_ERR_CONNECT_TIMEOUT', networkError('UND_ERR_CONNECT_TIMEOUT', false)],
    ['ECONNRESET before the request was written', networkError('ECONNRESET', false)],
    ['UND_ERR_SOCKET before the request was written', networkError('UND_ERR_SOCKET', false)],
  ])('retries %s: the gateway surely did not process it', async (_name, first) => {
    const poster = new ScriptedPoster(({ n, ids }) => (n === 1 ? first : accepted(ids)));
    const r = await run(messageEntries(2, 'm'), { poster });
    expect(poster.calls).toHaveLength(2);
    expect(outcomes(r)).toEqual(['accepted', 'accepted']);
  });

  it('after the last retry reports the batch failed, with the attempts', async () => {
    const poster = new ScriptedPoster(() => response(503, '', { 'retry-after': '1' }));
    const r = await run(messageEntries(2, 'm'), { poster, retries: 3 });
    expect(poster.calls).toHaveLength(4);
    expect(r.sleeps).toEqual([1_000, 1_000, 1_000]);
    for (const row of r.records) {
      expect(row).toMatchObject({ outcome: 'failed', attempts: 4 });
      expect(row.error).toBe('HTTP 503 (after 4 attempts)');
    }
    expect(r.batches).toMatchObject([{ verdict: 'failed', attempts: 4 }]);
  });

  it('a batch failed at its first and only attempt carries the reason alone, with no attempts note', async () => {
    const poster = new ScriptedPoster(() => response(503));
    const r = await run(messageEntries(2, 'm'), { poster, retries: 0 });
    expect(r.records.map((x) => [x.outcome, x.attempts, x.error])).toEqual([
      ['failed', 1, 'HTTP 503'],
      ['failed', 1, 'HTTP 503'],
    ]);
    expect(r.batches).toMatchObject([{ verdict: 'failed', attempts: 1 }]);
  });

  it('with --retries 0 sends once and reports failed', async () => {
    const poster = new ScriptedPoster(() => networkError('ECONNREFUSED', false));
    const r = await run(messageEntries(2, 'm'), { poster, retries: 0 });
    expect(poster.calls).toHaveLength(1);
    expect(r.sleeps).toEqual([]);
    expect(outcomes(r)).toEqual(['failed', 'failed']);
  });

  it.each<[string, Exchange]>([
    ['a 400', response(400, 'bad request')],
    ['ProcessResult false', refused('Too many messages in one request: 2 (maximum 1)')],
  ])('does not retry %s: sending again will not help', async (_name, answer) => {
    const poster = new ScriptedPoster(() => answer);
    const r = await run(messageEntries(2, 'm'), { poster });
    expect(poster.calls).toHaveLength(1);
    expect(outcomes(r)).toEqual(['failed', 'failed']);
    expect(r.stops).toEqual([]);
  });
});

describe('sendLoop: ambiguous answers are unknown and never resent', () => {
  const mismatched = response(200, {
    ProcessResult: true,
    Messages: [
      { StatusCode: 0, StatusDescription: 'Accepted', MessageId: 'other', TransactionId: 't' },
    ],
  });
  it.each<[string, Exchange]>([
    ['HTTP 500', response(500)],
    ['HTTP 502', response(502)],
    ['HTTP 504', response(504)],
    ['ECONNRESET after the request was written', networkError('ECONNRESET', true)],
    ['UND_ERR_SOCKET after the request was written', networkError('UND_ERR_SOCKET', true)],
    ['a headers timeout', networkError('UND_ERR_HEADERS_TIMEOUT', true)],
    ['a body timeout', networkError('UND_ERR_BODY_TIMEOUT', true)],
    ['an abort after sending', networkError('UND_ERR_ABORTED', true)],
    ['a malformed body', response(200, '<html>proxy error</html>')],
    ['a body without ProcessResult', response(200, { Messages: [] })],
    ['too few results', mismatched],
  ])('%s → unknown, one request', async (_name, answer) => {
    const poster = new ScriptedPoster(() => answer);
    const r = await run(messageEntries(2, 'm'), { poster, retries: 5 });
    expect(poster.calls).toHaveLength(1);
    expect(r.sleeps).toEqual([]);
    expect(r.records.map((x) => [x.outcome, x.attempts])).toEqual([
      ['unknown', 1],
      ['unknown', 1],
    ]);
    // Too few results is still an answer with results, each row of it unknown.
    const verdict = _name === 'too few results' ? 'results' : 'unknown';
    expect(r.batches).toMatchObject([{ batch: 1, size: 2, attempts: 1, verdict }]);
  });

  it('a retry that then meets an ambiguous answer is unknown, not failed', async () => {
    const poster = new ScriptedPoster(({ n }) => (n === 1 ? response(503) : response(500)));
    const r = await run(messageEntries(2, 'm'), { poster });
    expect(poster.calls).toHaveLength(2);
    expect(r.records.map((x) => [x.outcome, x.attempts])).toEqual([
      ['unknown', 2],
      ['unknown', 2],
    ]);
  });

  it('--retry-unknown resends an unknown batch, and it can recover', async () => {
    const poster = new ScriptedPoster(({ n, ids }) => (n === 1 ? response(500) : accepted(ids)));
    const r = await run(messageEntries(2, 'm'), { poster, retryUnknown: true });
    expect(poster.calls).toHaveLength(2);
    expect(r.retries[0]!.reason).toContain('--retry-unknown');
    expect(r.records.map((x) => [x.outcome, x.attempts])).toEqual([
      ['accepted', 2],
      ['accepted', 2],
    ]);
  });

  it('--retry-unknown: the batch stays recorded as sent between its attempts (no second beforeSend, no notSent)', async () => {
    const log: string[] = [];
    const poster = new ScriptedPoster(
      ({ n, ids }) => (n === 1 ? response(500) : accepted(ids)),
      log,
    );
    await run(messageEntries(2, 'm'), {
      poster,
      retryUnknown: true,
      hooks: {
        beforeSend: (batch) => Promise.resolve(void log.push(`beforeSend ${batch}`)),
        notSent: (batch) => Promise.resolve(void log.push(`notSent ${batch}`)),
        afterResult: (batch) => Promise.resolve(void log.push(`afterResult ${batch}`)),
      },
    });
    expect(log).toEqual(['beforeSend 1', 'post m-1,m-2', 'post m-1,m-2', 'afterResult 1']);
  });

  it.each<[string, Exchange]>([
    ['503 until the retries run out', response(503)],
    ['ProcessResult false', refused('Simulated fault: the request was not processed')],
    ['a 400', response(400, 'bad request')],
    ['a refused connection', networkError('ECONNREFUSED', false)],
  ])(
    '--retry-unknown: after an unknown attempt, a later %s stays unknown (the first may have landed)',
    async (_name, later) => {
      const poster = new ScriptedPoster(({ n }) => (n === 1 ? response(500) : later));
      const r = await run(messageEntries(2, 'm'), { poster, retryUnknown: true, retries: 2 });
      expect(poster.calls.length).toBeGreaterThanOrEqual(2);
      expect(poster.calls.length).toBeLessThanOrEqual(3);
      expect(outcomes(r)).toEqual(['unknown', 'unknown']);
    },
  );

  it('--retry-unknown: a batch that never reached the gateway is still failed', async () => {
    const poster = new ScriptedPoster(() => response(503));
    const r = await run(messageEntries(2, 'm'), { poster, retryUnknown: true, retries: 2 });
    expect(outcomes(r)).toEqual(['failed', 'failed']);
  });

  it('--retry-unknown still gives up after --retries', async () => {
    const poster = new ScriptedPoster(() => response(500));
    const r = await run(messageEntries(2, 'm'), { poster, retryUnknown: true, retries: 2 });
    expect(poster.calls).toHaveLength(3);
    expect(outcomes(r)).toEqual(['unknown', 'unknown']);
  });
});

describe('sendLoop: credentials refused stop the run at once', () => {
  it.each<[string, Exchange]>([
    ['HTTP 401', response(401)],
    ['HTTP 403', response(403)],
    ['ProcessResult false about authentication', refused('Authentication failed: bad login')],
  ])('%s: one request, every record failed, one stop event', async (_name, answer) => {
    const poster = new ScriptedPoster(() => answer);
    const r = await run(messageEntries(10, 'm'), { poster, retries: 3 });
    expect(poster.calls).toHaveLength(1);
    expect(r.sleeps).toEqual([]);
    expectEachRowOnce(r.records, 10);
    expect(r.records.every((x) => x.outcome === 'failed')).toBe(true);
    expect(r.byRow.get(1)!.attempts).toBe(1);
    for (let row = 3; row <= 10; row++) {
      expect(r.byRow.get(row)).toMatchObject({ attempts: 0 });
      expect(r.byRow.get(row)!.error).toMatch(/^not sent: the run stopped/);
    }
    expect(r.stops).toHaveLength(1);
    expect(r.stops[0]!.authRefused).toBe(true);
    expect(r.outcome.stopped).toEqual(r.stops[0]);
    expect(r.outcome.interrupted).toBe(false);
  });

  it('with several workers, stops once and sends no batch after the refusal', async () => {
    let refusedAt: number | undefined;
    const poster = new ScriptedPoster(async ({ n }) => {
      await settle();
      refusedAt ??= n;
      return response(401);
    });
    const r = await run(messageEntries(40, 'm'), { poster, concurrency: 3 });
    expect(poster.calls.length).toBeLessThanOrEqual(3);
    expect(r.stops).toHaveLength(1);
    expectEachRowOnce(r.records, 40);
    expect(r.records.every((x) => x.outcome === 'failed')).toBe(true);
  });

  it('keeps the password out of reasons taken from the gateway', async () => {
    const poster = new ScriptedPoster(() => response(400, `bad request for password ${SECRET}`));
    const r = await run(messageEntries(2, 'm'), { poster });
    expect(r.records[0]!.error).toContain('***');
    expect(JSON.stringify(r.records)).not.toContain(SECRET);
  });
});

describe('sendLoop: the circuit breaker', () => {
  it.each<[string, Exchange, number]>([
    ['HTTP 500', response(500), 3],
    ['ProcessResult false', refused('Simulated fault: the request was not processed'), 3],
    ['503 after the last retry', response(503), 1],
  ])('5 request-level failures in a row (%s) stop the run', async (_name, answer, retries) => {
    const poster = new ScriptedPoster(() => answer);
    const r = await run(messageEntries(20, 'm'), { poster, retries });
    expect(poster.calls).toHaveLength(
      5 * (answer.kind === 'response' && answer.status === 503 ? retries + 1 : 1),
    );
    expect(r.stops).toHaveLength(1);
    expect(r.stops[0]).toMatchObject({ authRefused: false });
    expect(r.stops[0]!.reason).toMatch(/^5 requests in a row failed; last: /);
    expectEachRowOnce(r.records, 20);
    for (let row = 11; row <= 20; row++) {
      expect(r.byRow.get(row)).toMatchObject({ outcome: 'failed', attempts: 0 });
    }
    expect(r.outcome.stopped).toEqual(r.stops[0]);
  });

  it('counts to maxConsecutiveFailures when given', async () => {
    const poster = new ScriptedPoster(() => response(500));
    const r = await run(messageEntries(20, 'm'), { poster, maxConsecutiveFailures: 2 });
    expect(poster.calls).toHaveLength(2);
    expect(r.stops).toHaveLength(1);
  });

  it('a batch that gets through resets the count', async () => {
    // Four failures, one success, over and over: never five in a row.
    const poster = new ScriptedPoster(({ n, ids }) =>
      n % 5 === 0 ? accepted(ids) : response(500),
    );
    const r = await run(messageEntries(40, 'm'), { poster });
    expect(poster.calls).toHaveLength(20);
    expect(r.stops).toEqual([]);
    expect(r.outcome.stopped).toBeUndefined();
    expectEachRowOnce(r.records, 40);
  });

  it('retries that recover are not failures', async () => {
    const poster = new ScriptedPoster(({ n, ids }) =>
      n % 2 === 1 ? response(503) : accepted(ids),
    );
    const r = await run(messageEntries(20, 'm'), { poster });
    expect(r.stops).toEqual([]);
    expect(r.records.every((x) => x.outcome === 'accepted')).toBe(true);
  });
});

describe('sendLoop: signals', () => {
  it('stopSignal: the batch in flight finishes, the rest is skipped and counted in notSent', async () => {
    const stop = new AbortController();
    const poster = new ScriptedPoster(({ n, ids }) => {
      if (n === 2) stop.abort();
      return accepted(ids);
    });
    const entries: Entry[] = [
      ...messageEntries(10, 'm'),
      { kind: 'final', row: 11, to: '', messageId: 'x-11', result: { outcome: 'invalid' } },
    ];
    const r = await run(entries, { poster, stopSignal: stop.signal });
    expect(poster.calls).toHaveLength(2);
    expectEachRowOnce(r.records, 11);
    for (let row = 1; row <= 4; row++) expect(r.byRow.get(row)!.outcome).toBe('accepted');
    for (let row = 5; row <= 10; row++) {
      expect(r.byRow.get(row)).toMatchObject({ outcome: 'skipped', attempts: 0 });
      expect(r.byRow.get(row)!.error).toContain('--resume');
    }
    expect(r.byRow.get(11)!.outcome).toBe('invalid');
    expect(r.outcome).toEqual({ stopped: undefined, interrupted: true, notSent: 6 });
    expect(r.stops).toEqual([]);
  });

  it('stopSignal with several workers: every sent record is answered, every other one skipped', async () => {
    const stop = new AbortController();
    const poster = new ScriptedPoster(async ({ n, ids }) => {
      await settle();
      if (n === 5) stop.abort();
      return accepted(ids);
    });
    const r = await run(messageEntries(60, 'm'), {
      poster,
      concurrency: 3,
      stopSignal: stop.signal,
    });
    const sent = new Set(poster.calls.flat());
    expectEachRowOnce(r.records, 60);
    for (const row of r.records) {
      expect(row.outcome).toBe(sent.has(row.messageId) ? 'accepted' : 'skipped');
    }
    expect(poster.calls.length).toBeLessThanOrEqual(5 + 3);
    expect(r.outcome.notSent).toBe(r.records.filter((x) => x.outcome === 'skipped').length);
    expect(r.outcome.interrupted).toBe(true);
  });

  it('a stop already given sends nothing and skips everything', async () => {
    const stop = new AbortController();
    stop.abort();
    const poster = new ScriptedPoster(({ ids }) => accepted(ids));
    const r = await run(messageEntries(5, 'm'), { poster, stopSignal: stop.signal });
    expect(poster.calls).toEqual([]);
    expect(r.records.every((x) => x.outcome === 'skipped')).toBe(true);
    expect(r.outcome).toEqual({ stopped: undefined, interrupted: true, notSent: 5 });
  });

  it('abortSignal: requests in flight are abandoned as unknown, the rest skipped', async () => {
    const stop = new AbortController();
    const abort = new AbortController();
    const poster = new ScriptedPoster(
      ({ signal }) =>
        new Promise<Exchange>((resolve) => {
          signal?.addEventListener('abort', () => resolve(networkError('UND_ERR_ABORTED', true)));
        }),
    );
    const done = run(messageEntries(20, 'm'), {
      poster,
      concurrency: 2,
      stopSignal: stop.signal,
      abortSignal: abort.signal,
    });
    for (let i = 0; i < 100 && poster.calls.length < 2; i++) await settle();
    expect(poster.calls).toHaveLength(2);
    stop.abort();
    abort.abort();
    const r = await done;
    expectEachRowOnce(r.records, 20);
    const sent = new Set(poster.calls.flat());
    for (const row of r.records) {
      expect(row.outcome).toBe(sent.has(row.messageId) ? 'unknown' : 'skipped');
    }
    expect(r.outcome).toMatchObject({ interrupted: true, notSent: 16 });
  });
});

describe('sendLoop: hooks and events', () => {
  it('beforeSend → post → (notSent → beforeSend → post) → afterResult → batch → record, each hook awaited', async () => {
    const log: string[] = [];
    const poster = new ScriptedPoster(
      ({ n, ids }) => (n === 1 ? response(503, '', { 'retry-after': '0' }) : accepted(ids)),
      log,
    );
    const events = new SendEmitter();
    events.on('batch', (b) => log.push(`batch ${b.batch} ${b.verdict}`));
    events.on('record', (row) => log.push(`record ${row.row} ${row.outcome}`));
    events.on('retry', (retry) => log.push(`retry ${retry.batch}`));
    const entries: Entry[] = [
      { kind: 'final', row: 1, to: '', messageId: 'x-1', result: { outcome: 'invalid' } },
      ...messageEntries(4, 'm', 2),
    ];
    await run(
      entries,
      {
        poster,
        hooks: {
          async beforeSend(batch, rows) {
            log.push(`beforeSend ${batch} [${rows.join(',')}]`);
            await settle();
            log.push(`beforeSend ${batch} durable`);
          },
          async notSent(batch, rows) {
            log.push(`notSent ${batch} [${rows.join(',')}]`);
            await settle();
            log.push(`notSent ${batch} durable`);
          },
          async afterResult(batch, rows) {
            log.push(
              `afterResult ${batch} [${rows.map((r) => `${r.row}:${r.outcome}`).join(',')}]`,
            );
            await settle();
            log.push(`afterResult ${batch} durable`);
          },
        },
      },
      events,
    );
    expect(log).toEqual([
      'record 1 invalid',
      'beforeSend 1 [2,3]',
      'beforeSend 1 durable',
      'post m-2,m-3',
      // A 503 surely did not reach the gateway: taken back before waiting, written again before
      // the next attempt, so a kill meanwhile leaves nothing "in flight".
      'notSent 1 [2,3]',
      'notSent 1 durable',
      'retry 1',
      'beforeSend 1 [2,3]',
      'beforeSend 1 durable',
      'post m-2,m-3',
      'afterResult 1 [2:accepted,3:accepted]',
      'afterResult 1 durable',
      'batch 1 results',
      'record 2 accepted',
      'record 3 accepted',
      'beforeSend 2 [4,5]',
      'beforeSend 2 durable',
      'post m-4,m-5',
      'afterResult 2 [4:accepted,5:accepted]',
      'afterResult 2 durable',
      'batch 2 results',
      'record 4 accepted',
      'record 5 accepted',
    ]);
  });

  it.each<[string, (log: string[]) => NonNullable<LoopOptions['hooks']>]>([
    [
      'afterResult only',
      (log) => ({ afterResult: (b) => Promise.resolve(void log.push(`after ${b}`)) }),
    ],
    [
      'beforeSend only',
      (log) => ({ beforeSend: (b) => Promise.resolve(void log.push(`before ${b}`)) }),
    ],
    ['notSent only', (log) => ({ notSent: (b) => Promise.resolve(void log.push(`notSent ${b}`)) })],
  ])(
    'hooks given in part (%s): the others are skipped, the batch still retried and answered',
    async (_name, hooks) => {
      const log: string[] = [];
      const poster = new ScriptedPoster(({ n, ids }) => (n === 1 ? response(503) : accepted(ids)));
      const r = await run(messageEntries(2, 'm'), { poster, hooks: hooks(log) });
      expect(r.records.map((x) => [x.outcome, x.attempts])).toEqual([
        ['accepted', 2],
        ['accepted', 2],
      ]);
      expect(log).toEqual(
        _name.startsWith('afterResult')
          ? ['after 1']
          : _name.startsWith('beforeSend')
            ? ['before 1', 'before 1']
            : ['notSent 1'],
      );
    },
  );

  it('a batch stopped by the breaker still passes through afterResult before its records', async () => {
    const log: string[] = [];
    const poster = new ScriptedPoster(() => response(401), log);
    const events = new SendEmitter();
    events.on('stop', () => log.push('stop'));
    events.on('record', (row) => log.push(`record ${row.row} ${row.outcome}`));
    await run(
      messageEntries(4, 'm'),
      {
        poster,
        hooks: {
          beforeSend: (batch) => Promise.resolve(void log.push(`beforeSend ${batch}`)),
          afterResult: (batch) => Promise.resolve(void log.push(`afterResult ${batch}`)),
        },
      },
      events,
    );
    expect(log).toEqual([
      'beforeSend 1',
      'post m-1,m-2',
      'stop',
      'afterResult 1',
      'record 1 failed',
      'record 2 failed',
      'record 3 failed',
      'record 4 failed',
    ]);
  });
});

describe('sendLoop: 429 and the rate limiter', () => {
  it('a 429 pauses the limiter for Retry-After and halves the rate; success creeps back', async () => {
    const clock = new InstantClock();
    const limiter = new RateLimiter(100, clock);
    const poster = new ScriptedPoster(({ n, ids }) =>
      n === 1 ? response(429, '', { 'retry-after': '3' }) : accepted(ids),
    );
    const r = await run(messageEntries(2, 'm'), {
      poster,
      limiter,
      clock,
    });
    expect(r.retries).toMatchObject([{ delayMs: 3_000, reason: 'HTTP 429' }]);
    // The retry's sleep and the limiter's pause overlap: three seconds in all, not six.
    expect(clock.time).toBe(3_000);
    expect(clock.sleeps).toEqual([3_000]);
    expect(limiter.currentRate).toBeCloseTo(55, 10); // 100 → 50 on the 429, then +10%
    expect(outcomes(r)).toEqual(['accepted', 'accepted']);
  });

  it('a 503 does not throttle the limiter', async () => {
    const limiter = new RateLimiter(100, new InstantClock());
    const poster = new ScriptedPoster(({ n, ids }) =>
      n === 1 ? response(503, '', { 'retry-after': '1' }) : accepted(ids),
    );
    await run(messageEntries(2, 'm'), { poster, limiter });
    expect(limiter.currentRate).toBe(100);
  });

  it('acquires tokens for every attempt, batch size each', async () => {
    const clock = new InstantClock();
    const limiter = new RateLimiter(10, clock); // 1 token: every batch of 2 must wait 200 ms
    const poster = new ScriptedPoster(({ n, ids }) =>
      n === 1 ? response(503, '', { 'retry-after': '0' }) : accepted(ids),
    );
    await run(messageEntries(4, 'm'), { poster, limiter, clock });
    // Three requests of 2 messages (one a retry): before the last, 4 messages were taken from a
    // bucket of 1 token refilled at 10/s, which takes at least 300 ms; without the retry, 100 ms.
    expect(poster.calls).toHaveLength(3);
    expect(clock.time).toBeGreaterThanOrEqual(((4 - 1) * 1000) / 10);
  });
});

// A blip is not an outage: with a grace, an open breaker (or a batch that surely did not get
// through) makes the run wait, probing with an empty request, instead of stopping.
const OK_EMPTY = { ProcessResult: true, Messages: [] };

describe('sendLoop: waiting out an outage (--outage-grace)', () => {
  /** A gateway down for `down` calls (probes included), answering `during` meanwhile. */
  function blip(down: number, during: Exchange = response(503)) {
    return new ScriptedPoster(({ n, ids }) => (n <= down ? during : accepted(ids)));
  }
  const graceful = (clock: InstantClock) => ({
    outageGraceMs: 60_000,
    clock,
  });

  it('503 past the retries: probes until the gateway answers, then sends the same batch again', async () => {
    const clock = new InstantClock();
    const outages: unknown[] = [];
    const events = new SendEmitter();
    events.on('outage', (o) => outages.push(o));
    // 4 attempts of batch 1 (1 + 3 retries), then 3 probes, all 503; then everything is answered.
    const poster = blip(7);
    const r = await run(messageEntries(4, 'm'), { poster, ...graceful(clock) }, events);
    expect(r.outcome.stopped).toBeUndefined();
    expect(outages).toEqual([{ reason: 'HTTP 503', graceMs: 60_000 }]);
    expect(poster.calls.map((ids) => ids.length)).toEqual([2, 2, 2, 2, 0, 0, 0, 0, 2, 2]);
    expectEachRowOnce(r.records, 4);
    expect(r.records.every((row) => row.outcome === 'accepted')).toBe(true);
    expect(r.byRow.get(1)).toMatchObject({ attempts: 5 });
  });

  it('a gateway that answers the probe but never the batch: three outage waits, then the batch is failed', async () => {
    const clock = new InstantClock();
    const poster = new ScriptedPoster(({ ids }) =>
      ids.length === 0 ? response(200, OK_EMPTY) : response(503),
    );
    const r = await run(messageEntries(2, 'm'), { poster, retries: 0, ...graceful(clock) });
    // The batch, then a probe and the batch again three times; no fourth wait.
    expect(poster.calls.map((ids) => ids.length)).toEqual([2, 0, 2, 0, 2, 0, 2]);
    expect(r.records.map((x) => [x.outcome, x.attempts, x.error])).toEqual([
      ['failed', 4, 'HTTP 503 (after 4 attempts)'],
      ['failed', 4, 'HTTP 503 (after 4 attempts)'],
    ]);
    expect(r.outcome.windowClosed).toBeFalsy();
  });

  it('the send window closes during an outage wait: the batch is not sent again, left for --resume', async () => {
    const clock = new InstantClock();
    let open = true;
    const poster = new ScriptedPoster(({ ids }) => {
      if (ids.length > 0) return response(503);
      open = false; // closes while the gateway is being probed; the probe itself is answered
      return response(200, OK_EMPTY);
    });
    const r = await run(messageEntries(4, 'm'), {
      poster,
      retries: 0,
      windowOpen: () => open,
      ...graceful(clock),
    });
    expect(poster.calls.map((ids) => ids.length)).toEqual([2, 0]);
    expect(r.records.map((x) => [x.row, x.outcome, x.attempts, x.error])).toEqual(
      [1, 2, 3, 4].map((row) => [
        row,
        'skipped',
        0,
        'not sent: the send window closed; --resume sends it',
      ]),
    );
    expect(r.outcome).toMatchObject({ notSent: 4, windowClosed: true });
  });

  it('down for longer than the grace: the run stops (exit 3 reason), nothing after it is sent', async () => {
    const clock = new InstantClock();
    const poster = new ScriptedPoster(() => networkError('ECONNREFUSED', false));
    const r = await run(messageEntries(6, 'm'), { poster, ...graceful(clock) });
    expect(r.outcome.stopped?.reason).toMatch(
      /^the gateway stayed unusable for 60s \(connection refused; last probe: connection refused\)$/,
    );
    expect(clock.now()).toBeGreaterThanOrEqual(60_000);
    expectEachRowOnce(r.records, 6);
    expect(r.records.every((row) => row.outcome === 'failed')).toBe(true);
    expect(poster.calls.filter((ids) => ids.length > 0)).toHaveLength(4); // batch 1 only
  });

  it('unknown answers in a row open the breaker: they stay unknown, the rest waits and goes on', async () => {
    const clock = new InstantClock();
    const poster = new ScriptedPoster(({ n, ids }) =>
      n <= 5 ? response(502) : ids.length === 0 ? response(200, OK_EMPTY) : accepted(ids),
    );
    const r = await run(messageEntries(20, 'm'), { poster, ...graceful(clock) });
    expect(r.outcome.stopped).toBeUndefined();
    expectEachRowOnce(r.records, 20);
    const unknown = r.records.filter((row) => row.outcome === 'unknown').map((row) => row.row);
    expect(unknown.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // No unknown batch is sent twice: each id appears in exactly one non-empty request.
    const sent = poster.calls.flat();
    expect(new Set(sent).size).toBe(sent.length);
  });

  it('credentials refused while probing stop the run at once', async () => {
    const clock = new InstantClock();
    const poster = new ScriptedPoster(({ n }) =>
      n <= 4 ? response(503) : refused('Invalid username or password'),
    );
    const r = await run(messageEntries(4, 'm'), { poster, ...graceful(clock) });
    expect(r.outcome.stopped).toMatchObject({ authRefused: true });
    expect(clock.now()).toBeLessThan(60_000);
  });

  it('refusals in a row (ProcessResult false) still stop the run: waiting would not help', async () => {
    const clock = new InstantClock();
    const poster = new ScriptedPoster(() => refused('Too many messages'));
    const r = await run(messageEntries(20, 'm'), { poster, ...graceful(clock) });
    expect(r.outcome.stopped?.reason).toMatch(/^5 requests in a row failed/);
    expect(poster.calls.every((ids) => ids.length > 0)).toBe(true); // never probed
  });
});

describe('sendLoop: a gateway never reached', () => {
  it.each([
    ['refused', networkError('ECONNREFUSED', false), /^the gateway was never reached: /],
    ['a DNS failure', networkError('ENOTFOUND', false), /^the gateway was never reached: /],
    // Not retried: no waiting makes a certificate trusted.
    [
      'an untrusted certificate',
      networkError('DEPTH_ZERO_SELF_SIGNED_CERT', false),
      /^the gateway's TLS certificate is self-signed \(not trusted\)/,
    ],
  ])(
    '(%s): even one batch makes it a stopped run, not one with failed records',
    async (_, answer, reason) => {
      const poster = new ScriptedPoster(() => answer);
      const r = await run(messageEntries(1, 'm'), { poster, retries: 1 });
      expect(r.outcome.stopped?.reason).toMatch(reason);
      expect(r.byRow.get(1)).toMatchObject({ outcome: 'failed' });
    },
  );

  it('requests written and then unanswered (timeouts) reached it: unknown, not "never reached"', async () => {
    const poster = new ScriptedPoster(() => networkError('UND_ERR_HEADERS_TIMEOUT', true));
    const r = await run(messageEntries(2, 'm'), { poster });
    expect(r.outcome.stopped).toBeUndefined();
    expect(r.byRow.get(1)).toMatchObject({ outcome: 'unknown' });
  });

  it('one HTTP answer, even a refusal, means it was reached', async () => {
    const poster = new ScriptedPoster(() => response(400, 'bad'));
    const r = await run(messageEntries(1, 'm'), { poster });
    expect(r.outcome.stopped).toBeUndefined();
  });
});

describe('sendLoop: Ctrl-C ends a long wait at once', () => {
  it('a Retry-After wait is cut short by the stop signal; the batch is failed, the rest skipped', async () => {
    const stop = new AbortController();
    const poster = new ScriptedPoster(() => response(503, '', { 'retry-after': '3600' }));
    const running = run(messageEntries(4, 'm'), {
      poster,
      stopSignal: stop.signal,
      // A wait that only the signal can end, as a real hour-long Retry-After would be.
      clock: { ...systemClock, sleep: () => new Promise<void>(() => undefined) },
    });
    await settle();
    stop.abort();
    const r = await running;
    expect(r.outcome.interrupted).toBe(true);
    expect(poster.calls).toHaveLength(1);
    expect(r.byRow.get(1)).toMatchObject({ outcome: 'failed', attempts: 1 });
    expect(r.byRow.get(3)).toMatchObject({ outcome: 'skipped' });
  });
});

describe('the send window closing on a batch being retried', () => {
  it('sends it no more once the window has closed: not sent, left for --resume, and the run says the window closed', async () => {
    let open = true;
    const notSent: number[] = [];
    const poster = new ScriptedPoster(({ n, ids }) => {
      // The first request of the first batch is throttled; the window closes meanwhile.
      if (n === 1) {
        open = false;
        return response(429, '', { 'retry-after': '30' });
      }
      return accepted(ids);
    });
    const result = await run(messageEntries(4, 'w'), {
      poster,
      windowOpen: () => open,
      hooks: { notSent: (batch) => Promise.resolve(void notSent.push(batch)) },
    });
    expect(poster.calls).toHaveLength(1);
    expect(result.sleeps).toEqual([]);
    expect(notSent).toEqual([1]);
    expect(result.records.map((r) => [r.row, r.outcome, r.error])).toEqual(
      [1, 2, 3, 4].map((row) => [
        row,
        'skipped',
        'not sent: the send window closed; --resume sends it',
      ]),
    );
    expect(result.outcome).toMatchObject({ notSent: 4, windowClosed: true, interrupted: false });
  });
});
