// sendBatch(): one batch's whole retry policy, from its journaled intent to its rows: sent, sent
// again while retries last, held over an outage, left for --resume, or settled failed or unknown.
// Scripted answers, journal hooks that log, and a virtual clock: every step is visible.
import { describe, expect, it } from 'vitest';
import type { Answer, GatewayResult, Verdict } from '../../src/gateway/outcome.js';
import type { RowResult } from '../../src/message/outcome.js';
import { sendBatch } from '../../src/send/batch.js';
import { SendEmitter, type BatchReport, type RetryNotice } from '../../src/send/events.js';
import { RateLimiter } from '../../src/send/rate.js';
import { SendState, StateWriteError, WINDOW_CLOSED } from '../../src/send/state.js';
import type { LoopRun, MessageEntry, Poster, SendHooks } from '../../src/send/types.js';
import { InstantClock } from '../helpers/clock.js';

const entries = (count: number, firstRow = 1): MessageEntry[] =>
  Array.from({ length: count }, (_, i) => {
    const row = firstRow + i;
    return {
      kind: 'message',
      row,
      to: `4741${String(row).padStart(6, '0')}`,
      messageId: `m-${row}`,
      json: `{"MessageId":"m-${row}"}`,
    };
  });

/** One answer of the gateway to a request, and whether the request had been written whole. */
interface Reply {
  answer: (ids: readonly string[]) => Answer;
  posted: boolean;
}

const httpAnswer = (status: number, verdict: Verdict, throttled = false): Answer => ({
  verdict,
  status: `HTTP ${status}`,
  httpStatus: status,
  latencyMs: 7,
  throttled,
});

const answering = (result: (id: string) => GatewayResult): Reply => ({
  answer: (ids) => httpAnswer(200, { kind: 'results', results: ids.map(result) }),
  posted: true,
});
const accepted = answering((id) => ({
  outcome: 'accepted',
  statusCode: 0,
  statusDescription: 'Accepted',
  transactionId: `tx-${id}`,
}));
const verdictOf = (status: number, verdict: Verdict, throttled = false): Reply => ({
  answer: () => httpAnswer(status, verdict, throttled),
  posted: true,
});
const unavailable = (retryAfterMs?: number) =>
  verdictOf(503, { kind: 'retry', reason: 'HTTP 503', retryAfterMs });
const tooMany = (retryAfterMs: number) =>
  verdictOf(429, { kind: 'retry', reason: 'HTTP 429', retryAfterMs }, true);
const serverError = verdictOf(500, { kind: 'unknown', reason: 'HTTP 500 from the gateway' });
const badRequest = verdictOf(400, {
  kind: 'failed',
  reason: 'HTTP 400: bad request',
  authRefused: false,
});
const credentialsRefused = verdictOf(401, {
  kind: 'failed',
  reason: 'credentials refused (HTTP 401)',
  authRefused: true,
});
const connectionRefused: Reply = {
  answer: () => ({
    verdict: { kind: 'retry', reason: 'connection refused', unreachable: true },
    status: 'ECONNREFUSED',
    latencyMs: 1,
    throttled: false,
  }),
  posted: false,
};
const resetAfterSending: Reply = {
  answer: () => ({
    verdict: { kind: 'unknown', reason: 'connection reset after the request was sent' },
    status: 'ECONNRESET',
    latencyMs: 1,
    throttled: false,
  }),
  posted: true,
};

/** Virtual time, and a say in what happens while the run sleeps. */
class SleepingClock extends InstantClock {
  constructor(
    sleeps: number[],
    private readonly onSleep?: () => void,
  ) {
    super(sleeps);
  }
  override sleep(ms: number): Promise<void> {
    this.onSleep?.();
    return super.sleep(ms);
  }
}

/** The gateway: its replies in order (probes included), and more requests than that fail the test. */
class ScriptedPoster implements Poster {
  readonly messages: (readonly string[])[] = [];
  constructor(
    private readonly replies: Reply[],
    private readonly log: string[],
  ) {}

  post(
    messages: readonly string[],
    messageIds: readonly string[],
    _signal?: AbortSignal,
    posted?: () => void,
  ): Promise<Answer> {
    this.log.push(messageIds.length === 0 ? 'probe' : `post ${messageIds.join(',')}`);
    this.messages.push(messages);
    const reply = this.replies.shift();
    if (!reply) throw new Error(`request ${this.messages.length} is more than the script has`);
    if (reply.posted) posted?.();
    return Promise.resolve(reply.answer(messageIds));
  }
}

type Hook = 'beforeSend' | 'notSent' | 'afterResult';

interface Options {
  retries?: number;
  outageGraceMs?: number;
  retryUnknown?: boolean;
  /** The window's answers in turn; open once they run out. */
  window?: boolean[];
  /** The call of a journal hook (1 = its first) that fails as a full disk does. */
  refuse?: Partial<Record<Hook, number>>;
  stop?: AbortController;
  limiter?: RateLimiter;
  /** Called as the run's clock sleeps (a Ctrl-C while waiting). */
  onSleep?: () => void;
}

interface Sent {
  state: SendState;
  poster: ScriptedPoster;
  /** Journal hooks, requests and events, in the order they happened. */
  log: string[];
  beforeSend: [batch: number, rows: readonly number[], recipients: readonly string[]][];
  notSent: [batch: number, rows: readonly number[]][];
  afterResult: [batch: number, rows: readonly RowResult[]][];
  records: RowResult[];
  batches: BatchReport[];
  retries: RetryNotice[];
  sleeps: number[];
}

function setUp(replies: Reply[], options: Options = {}): Sent {
  const log: string[] = [];
  const sent: Omit<Sent, 'state' | 'poster'> = {
    log,
    beforeSend: [],
    notSent: [],
    afterResult: [],
    records: [],
    batches: [],
    retries: [],
    sleeps: [],
  };
  const calls: Record<Hook, number> = { beforeSend: 0, notSent: 0, afterResult: 0 };
  const journal = (hook: Hook, batch: number): Promise<void> => {
    log.push(`${hook} ${batch}`);
    if (++calls[hook] === options.refuse?.[hook]) {
      return Promise.reject(new StateWriteError(`${hook}: the disk is full`));
    }
    return Promise.resolve();
  };
  const hooks: SendHooks = {
    beforeSend: (batch, rows, recipients) => {
      sent.beforeSend.push([batch, rows, recipients]);
      return journal('beforeSend', batch);
    },
    posted: (batch) => log.push(`posted ${batch}`),
    notSent: (batch, rows) => {
      sent.notSent.push([batch, rows]);
      return journal('notSent', batch);
    },
    afterResult: (batch, rows) => {
      sent.afterResult.push([batch, rows]);
      return journal('afterResult', batch);
    },
  };
  const events = new SendEmitter();
  events.on('record', (row) => sent.records.push(row));
  events.on('batch', (batch) => sent.batches.push(batch));
  events.on('retry', (retry) => {
    sent.retries.push(retry);
    log.push(`retry ${retry.batch}`);
  });
  for (const name of ['outage', 'recovered', 'windowClosed', 'stop', 'unreachable'] as const) {
    events.on(name, () => log.push(name));
  }
  const window = [...(options.window ?? [])];
  const loop: LoopRun = {
    settings: {
      batchSize: 100,
      concurrency: 1,
      retries: options.retries ?? 3,
      outageGraceMs: options.outageGraceMs ?? 0,
    },
    choices: { retryUnknown: options.retryUnknown },
    io: {
      events,
      clock: new SleepingClock(sent.sleeps, options.onSleep),
      stop: options.stop?.signal,
    },
  };
  const poster = new ScriptedPoster(replies, log);
  const state = new SendState(loop, {
    poster,
    hooks,
    windowOpen: () => window.shift() ?? true,
    limiter: options.limiter ?? new RateLimiter(undefined, new InstantClock()),
    random: () => 0.5,
  });
  return { ...sent, state, poster };
}

async function send(batch: MessageEntry[], replies: Reply[], options: Options = {}) {
  const sent = setUp(replies, options);
  await sendBatch(sent.state, batch);
  return sent;
}

/** The columns a report row takes from its entry. */
const base = ({ row, to, messageId }: MessageEntry) => ({ row, to, messageId });

/** Each row of the batch, as the report gets it. */
const rows = (
  batch: MessageEntry[],
  result: Omit<RowResult, 'row' | 'to' | 'messageId'>,
): RowResult[] => batch.map((entry) => ({ ...base(entry), ...result }));

const acceptedRows = (batch: MessageEntry[], attempts: number): RowResult[] =>
  batch.map((entry) => ({
    ...base(entry),
    outcome: 'accepted',
    attempts,
    statusCode: 0,
    statusDescription: 'Accepted',
    transactionId: `tx-${entry.messageId}`,
  }));

describe('sendBatch: a batch the gateway answers', () => {
  it.each([1, 2, 100])(
    'sends a batch of %i in one request, journaled first, and reports each record',
    async (size) => {
      const batch = entries(size, 201);
      const ids = batch.map((e) => e.messageId).join(',');
      const s = await send(batch, [accepted]);
      expect(s.log).toEqual(['beforeSend 1', `post ${ids}`, 'posted 1', 'afterResult 1']);
      expect(s.beforeSend).toEqual([[1, batch.map((e) => e.row), batch.map((e) => e.to)]]);
      expect(s.poster.messages).toEqual([batch.map((e) => e.json)]);
      expect(s.records).toStrictEqual(acceptedRows(batch, 1));
      expect(s.afterResult).toStrictEqual([[1, acceptedRows(batch, 1)]]);
      expect(s.batches).toEqual([
        { batch: 1, size, attempts: 1, latencyMs: 7, status: 'HTTP 200', verdict: 'results' },
      ]);
      expect(s.retries).toEqual([]);
      expect(s.sleeps).toEqual([]);
      expect(s.state).toMatchObject({ attempted: true, reached: true, notSent: 0 });
      expect(s.state.stopped).toBeUndefined();
    },
  );

  it('numbers the batches of a run in the order they are taken', async () => {
    const s = setUp([accepted, accepted]);
    await sendBatch(s.state, entries(2, 1));
    await sendBatch(s.state, entries(1, 3));
    expect(s.beforeSend.map(([batch]) => batch)).toEqual([1, 2]);
    expect(s.batches.map((b) => [b.batch, b.size])).toEqual([
      [1, 2],
      [2, 1],
    ]);
    expect(s.state.batchNumber).toBe(2);
  });

  it("gives each record its own result, in the request's order", async () => {
    const batch = entries(3);
    const s = await send(batch, [
      answering((id) =>
        id === 'm-2'
          ? { outcome: 'rejected', statusCode: 3, statusDescription: 'Invalid destination' }
          : id === 'm-3'
            ? { outcome: 'unknown', error: 'the gateway returned 2 results for 3 messages' }
            : { outcome: 'accepted', statusCode: 0, transactionId: 'tx-1' },
      ),
    ]);
    expect(s.records).toStrictEqual([
      {
        ...base(batch[0]!),
        outcome: 'accepted',
        attempts: 1,
        statusCode: 0,
        transactionId: 'tx-1',
      },
      {
        ...base(batch[1]!),
        outcome: 'rejected',
        attempts: 1,
        statusCode: 3,
        statusDescription: 'Invalid destination',
      },
      {
        ...base(batch[2]!),
        outcome: 'unknown',
        attempts: 1,
        error: 'the gateway returned 2 results for 3 messages',
      },
    ]);
  });

  it("closes the breaker's count and lets the rate creep back after an answer", async () => {
    const limiter = new RateLimiter(100, new InstantClock());
    limiter.throttled(0);
    const s = setUp([accepted], { limiter });
    s.state.consecutiveFailures = 4;
    await sendBatch(s.state, entries(1));
    expect(s.state.consecutiveFailures).toBe(0);
    expect(limiter.currentRate).toBeCloseTo(55, 10);
  });
});

describe('sendBatch: retries of a request that surely did not get through', () => {
  it('takes the journal entry back, waits, and journals the batch again before resending', async () => {
    const batch = entries(2);
    const s = await send(batch, [unavailable(), accepted]);
    expect(s.log).toEqual([
      'beforeSend 1',
      'post m-1,m-2',
      'posted 1',
      'notSent 1',
      'retry 1',
      'beforeSend 1',
      'post m-1,m-2',
      'posted 1',
      'afterResult 1',
    ]);
    expect(s.notSent).toEqual([[1, [1, 2]]]);
    expect(s.retries).toEqual([{ batch: 1, attempt: 1, delayMs: 250, reason: 'HTTP 503' }]);
    expect(s.sleeps).toEqual([250]);
    expect(s.records).toStrictEqual(acceptedRows(batch, 2));
    expect(s.batches[0]).toMatchObject({ attempts: 2, verdict: 'results' });
  });

  it.each<[string, Reply, number]>([
    ['503 with Retry-After', unavailable(2_000), 2_000],
    ['429 with Retry-After', tooMany(3_000), 3_000],
    ['Retry-After: 0', unavailable(0), 0],
  ])('waits what the %s asks, not the backoff', async (_what, reply, delayMs) => {
    const s = await send(entries(1), [reply, accepted]);
    expect(s.retries.map((r) => r.delayMs)).toEqual([delayMs]);
    expect(s.sleeps).toEqual([delayMs]);
  });

  it('makes every request wait out a 429 on the rate limiter', async () => {
    const limiterClock = new InstantClock();
    const limiter = new RateLimiter(undefined, limiterClock);
    await send(entries(1), [tooMany(3_000), accepted], { limiter });
    expect(limiterClock.sleeps).toEqual([3_000]);
  });

  it('does not pause the rate limiter for a 503 with Retry-After', async () => {
    const limiterClock = new InstantClock();
    const limiter = new RateLimiter(undefined, limiterClock);
    await send(entries(1), [unavailable(3_000), accepted], { limiter });
    expect(limiterClock.sleeps).toEqual([]);
  });

  it('backs off longer with each try', async () => {
    const s = await send(entries(1), [unavailable(), unavailable(), unavailable(), accepted]);
    expect(s.retries.map((r) => [r.attempt, r.delayMs])).toEqual([
      [1, 250],
      [2, 500],
      [3, 1_000],
    ]);
    expect(s.records[0]).toMatchObject({ outcome: 'accepted', attempts: 4 });
  });

  it.each<[number, number, string]>([
    [0, 1, 'HTTP 503'],
    [1, 2, 'HTTP 503 (after 2 attempts)'],
    [3, 4, 'HTTP 503 (after 4 attempts)'],
  ])(
    'with --retries %i, gives up after %i attempts: failed, it never got through',
    async (retries, attempts, error) => {
      const batch = entries(2);
      const replies = Array.from({ length: attempts }, () => unavailable());
      const s = await send(batch, replies, { retries });
      expect(s.poster.messages).toHaveLength(attempts);
      expect(s.retries).toHaveLength(attempts - 1);
      expect(s.notSent).toHaveLength(attempts);
      expect(s.records).toStrictEqual(rows(batch, { outcome: 'failed', attempts, error }));
      expect(s.afterResult).toStrictEqual([[1, s.records]]);
      expect(s.batches).toEqual([
        { batch: 1, size: 2, attempts, latencyMs: 7, status: 'HTTP 503', verdict: 'failed' },
      ]);
      expect(s.state.consecutiveFailures).toBe(1);
      expect(s.state.lastReason).toBe('HTTP 503');
      expect(s.state.stopped).toBeUndefined();
    },
  );

  it('says at once, and once, that a refused connection never reached the gateway', async () => {
    const batch = entries(1);
    const s = await send(batch, [connectionRefused, connectionRefused], { retries: 1 });
    // Not posted: the request never left, so each attempt is taken back.
    expect(s.log).toEqual([
      'beforeSend 1',
      'post m-1',
      'unreachable',
      'notSent 1',
      'retry 1',
      'beforeSend 1',
      'post m-1',
      'notSent 1',
      'afterResult 1',
    ]);
    expect(s.state.reached).toBe(false);
    expect(s.state.attempted).toBe(true);
    expect(s.records).toStrictEqual(
      rows(batch, {
        outcome: 'failed',
        attempts: 2,
        error: 'connection refused (after 2 attempts)',
      }),
    );
  });
});

describe('sendBatch: a request the gateway may have processed', () => {
  it.each<[string, Reply, string, string]>([
    ['an HTTP 500', serverError, 'HTTP 500 from the gateway', 'HTTP 500'],
    [
      'a connection reset after sending',
      resetAfterSending,
      'connection reset after the request was sent',
      'ECONNRESET',
    ],
  ])(
    'is unknown at once after %s: never sent again, never taken back',
    async (_what, reply, error, status) => {
      const batch = entries(2);
      const s = await send(batch, [reply]);
      expect(s.log).toEqual(['beforeSend 1', 'post m-1,m-2', 'posted 1', 'afterResult 1']);
      expect(s.records).toStrictEqual(rows(batch, { outcome: 'unknown', attempts: 1, error }));
      expect(s.batches).toEqual([
        {
          batch: 1,
          size: 2,
          attempts: 1,
          latencyMs: s.batches[0]!.latencyMs,
          status,
          verdict: 'unknown',
        },
      ]);
      expect(s.state.reached).toBe(true);
      expect(s.state.consecutiveFailures).toBe(1);
    },
  );

  it('is unknown when a retry ends in an answer that may have been processed', async () => {
    const batch = entries(1);
    const s = await send(batch, [unavailable(), serverError]);
    expect(s.notSent).toHaveLength(1);
    expect(s.records).toStrictEqual(
      rows(batch, {
        outcome: 'unknown',
        attempts: 2,
        error: 'HTTP 500 from the gateway (after 2 attempts)',
      }),
    );
  });

  it('with --retry-unknown, is sent again, still journaled as in flight', async () => {
    const batch = entries(1);
    const s = await send(batch, [serverError, accepted], { retryUnknown: true });
    expect(s.log).toEqual([
      'beforeSend 1',
      'post m-1',
      'posted 1',
      'retry 1',
      'post m-1',
      'posted 1',
      'afterResult 1',
    ]);
    expect(s.retries).toEqual([
      {
        batch: 1,
        attempt: 1,
        delayMs: 250,
        reason: 'HTTP 500 from the gateway; resending (--retry-unknown)',
      },
    ]);
    expect(s.records).toStrictEqual(acceptedRows(batch, 2));
  });

  it('with --retry-unknown, stays unknown when retries run out, however the last try ended', async () => {
    const batch = entries(1);
    const s = await send(batch, [serverError, unavailable()], {
      retryUnknown: true,
      retries: 1,
      outageGraceMs: 60_000,
    });
    // Neither taken back nor held over an outage: the first request may have been delivered.
    expect(s.notSent).toEqual([]);
    expect(s.log).not.toContain('outage');
    expect(s.records).toStrictEqual(
      rows(batch, { outcome: 'unknown', attempts: 2, error: 'HTTP 503 (after 2 attempts)' }),
    );
  });
});

describe('sendBatch: a request refused', () => {
  it('is failed at once, without a retry', async () => {
    const batch = entries(2);
    const s = await send(batch, [badRequest]);
    expect(s.retries).toEqual([]);
    expect(s.records).toStrictEqual(
      rows(batch, { outcome: 'failed', attempts: 1, error: 'HTTP 400: bad request' }),
    );
    expect(s.batches[0]).toMatchObject({ verdict: 'failed', status: 'HTTP 400' });
    expect(s.state.stopped).toBeUndefined();
  });

  it('stops the run when the credentials are refused', async () => {
    const batch = entries(1);
    const s = await send(batch, [credentialsRefused]);
    expect(s.records).toStrictEqual(
      rows(batch, { outcome: 'failed', attempts: 1, error: 'credentials refused (HTTP 401)' }),
    );
    expect(s.state.stopped).toStrictEqual({
      reason: 'credentials refused (HTTP 401)',
      authRefused: true,
    });
  });
});

describe('sendBatch: a journal that cannot be written', () => {
  it('sends nothing whose intent could not be journaled, and reports it not sent', async () => {
    const batch = entries(3);
    const s = await send(batch, [], { refuse: { beforeSend: 1 } });
    expect(s.log).toEqual(['beforeSend 1', 'stop']);
    expect(s.poster.messages).toEqual([]);
    expect(s.records).toStrictEqual(
      rows(batch, {
        outcome: 'failed',
        attempts: 0,
        error: 'not sent: the run stopped (beforeSend: the disk is full)',
      }),
    );
    expect(s.batches).toEqual([]);
    expect(s.state.notSent).toBe(3);
    expect(s.state.stopped).toStrictEqual({
      reason: 'beforeSend: the disk is full',
      authRefused: false,
      stateUnwritable: true,
    });
  });

  it('does not resend a batch taken back when its next intent cannot be journaled', async () => {
    const batch = entries(2);
    const s = await send(batch, [unavailable()], { refuse: { beforeSend: 2 } });
    expect(s.poster.messages).toHaveLength(1);
    expect(s.records).toStrictEqual(
      rows(batch, {
        outcome: 'failed',
        attempts: 0,
        error: 'not sent: the run stopped (beforeSend: the disk is full)',
      }),
    );
    expect(s.state.notSent).toBe(2);
  });

  it('settles a batch that could not be taken back, and sends it no more', async () => {
    const batch = entries(1);
    const s = await send(batch, [unavailable()], {
      refuse: { notSent: 1 },
      outageGraceMs: 60_000,
    });
    expect(s.log).toEqual([
      'beforeSend 1',
      'post m-1',
      'posted 1',
      'notSent 1',
      'stop',
      'afterResult 1',
    ]);
    expect(s.records).toStrictEqual(
      rows(batch, { outcome: 'failed', attempts: 1, error: 'HTTP 503' }),
    );
    expect(s.state.stopped).toMatchObject({ stateUnwritable: true });
  });

  it('reports the results it could not journal, and stops', async () => {
    const batch = entries(2);
    const s = await send(batch, [accepted], { refuse: { afterResult: 1 } });
    expect(s.records).toStrictEqual(acceptedRows(batch, 1));
    expect(s.batches).toHaveLength(1);
    expect(s.state.stopped).toStrictEqual({
      reason: 'afterResult: the disk is full',
      authRefused: false,
      stateUnwritable: true,
    });
  });
});

describe('sendBatch: the send window and Ctrl-C', () => {
  const leftForResume = (batch: MessageEntry[]) =>
    rows(batch, { outcome: 'skipped', attempts: 0, error: WINDOW_CLOSED });

  it('leaves a batch that did not get through for --resume when the window has closed', async () => {
    const batch = entries(2);
    const s = await send(batch, [unavailable()], { window: [false] });
    expect(s.log).toEqual([
      'beforeSend 1',
      'post m-1,m-2',
      'posted 1',
      'notSent 1',
      'windowClosed',
    ]);
    expect(s.sleeps).toEqual([]);
    expect(s.records).toStrictEqual(leftForResume(batch));
    expect(s.batches).toEqual([]);
    expect(s.state.notSent).toBe(2);
  });

  it('leaves it for --resume when the window closes during the wait to retry', async () => {
    const batch = entries(1);
    const s = await send(batch, [unavailable()], { window: [true, false] });
    expect(s.retries).toHaveLength(1);
    expect(s.sleeps).toEqual([250]);
    expect(s.poster.messages).toHaveLength(1);
    expect(s.records).toStrictEqual(leftForResume(batch));
  });

  it('settles an answer that may have been processed as unknown, window closed or not', async () => {
    const batch = entries(1);
    const s = await send(batch, [serverError], { retryUnknown: true, window: [false] });
    expect(s.records).toStrictEqual(
      rows(batch, {
        outcome: 'unknown',
        attempts: 1,
        error: 'HTTP 500 from the gateway; resending (--retry-unknown)',
      }),
    );
    expect(s.state.notSent).toBe(0);
  });

  it('ends a batch interrupted while waiting to retry as what it is: failed, not resent', async () => {
    const batch = entries(1);
    const stop = new AbortController();
    const s = await send(batch, [unavailable()], { stop, onSleep: () => stop.abort() });
    expect(s.sleeps).toEqual([250]);
    expect(s.poster.messages).toHaveLength(1);
    expect(s.records).toStrictEqual(
      rows(batch, { outcome: 'failed', attempts: 1, error: 'HTTP 503' }),
    );
  });
});

describe('sendBatch: holding a batch over an outage', () => {
  it('waits for the gateway when retries run out, then sends the batch again', async () => {
    const batch = entries(1);
    const s = await send(batch, [unavailable(), accepted, accepted], {
      retries: 0,
      outageGraceMs: 60_000,
    });
    expect(s.log).toEqual([
      'beforeSend 1',
      'post m-1',
      'posted 1',
      'notSent 1',
      'outage',
      'probe',
      'recovered',
      'beforeSend 1',
      'post m-1',
      'posted 1',
      'afterResult 1',
    ]);
    expect(s.records).toStrictEqual(acceptedRows(batch, 2));
  });

  it('gives the batch its retries anew after the wait', async () => {
    const s = await send(
      entries(1),
      [unavailable(), unavailable(), accepted, unavailable(), accepted],
      { retries: 1, outageGraceMs: 60_000 },
    );
    // The attempt after the outage backs off as a first retry again (250 ms, not 500).
    expect(s.retries.map((r) => [r.attempt, r.delayMs])).toEqual([
      [1, 250],
      [3, 250],
    ]);
    expect(s.records[0]).toMatchObject({ outcome: 'accepted', attempts: 4 });
  });

  it('waits at most three times for one batch, then reports it failed', async () => {
    const batch = entries(1);
    const s = await send(
      batch,
      [unavailable(), accepted, unavailable(), accepted, unavailable(), accepted, unavailable()],
      { retries: 0, outageGraceMs: 60_000 },
    );
    expect(s.log.filter((line) => line === 'probe')).toHaveLength(3);
    expect(s.records).toStrictEqual(
      rows(batch, { outcome: 'failed', attempts: 4, error: 'HTTP 503 (after 4 attempts)' }),
    );
  });

  it('reports the batch failed when the gateway stays down past the grace', async () => {
    const batch = entries(1);
    const s = await send(batch, [unavailable(), unavailable(), unavailable()], {
      retries: 0,
      outageGraceMs: 1_000,
    });
    expect(s.log.filter((line) => line === 'probe')).toHaveLength(2);
    expect(s.records).toStrictEqual(
      rows(batch, { outcome: 'failed', attempts: 1, error: 'HTTP 503' }),
    );
    expect(s.state.stopped).toStrictEqual({
      reason: 'the gateway stayed unusable for 1s (HTTP 503; last probe: HTTP 503)',
      authRefused: false,
    });
  });

  it('leaves the batch for --resume when the window closed while waiting', async () => {
    const batch = entries(1);
    const s = await send(batch, [unavailable(), accepted], {
      retries: 0,
      outageGraceMs: 60_000,
      window: [true, false],
    });
    expect(s.log.filter((line) => line === 'probe')).toHaveLength(1);
    expect(s.records).toStrictEqual(
      rows(batch, { outcome: 'skipped', attempts: 0, error: WINDOW_CLOSED }),
    );
  });
});
