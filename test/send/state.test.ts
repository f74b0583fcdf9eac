// SendState and toRow: what the workers of one send loop share (the stop, the send window, the
// breaker's count, the one outage wait, the records left unsent) and how a record becomes a report
// row. Driven by scripted answers and a virtual clock: every decision is visible, nothing waits.
import { describe, expect, it } from 'vitest';
import type { Answer, Verdict } from '../../src/gateway/outcome.js';
import type { MessageResult, RowResult } from '../../src/message/outcome.js';
import { SendEmitter, type SendEvents } from '../../src/send/events.js';
import { RateLimiter } from '../../src/send/rate.js';
import {
  NOT_SENT_PREFIX,
  SendState,
  StateWriteError,
  toRow,
  WINDOW_CLOSED,
} from '../../src/send/state.js';
import type { LoopGateway, LoopRun, MessageEntry, Poster } from '../../src/send/types.js';
import type { Clock } from '../../src/shared/clock.js';
import type { Entry } from '../../src/validate/entries.js';
import { InstantClock, ManualClock } from '../helpers/clock.js';
import { settle } from '../helpers/reliability.js';

type Stopped = NonNullable<SendState['stopped']>;

const entry = (row: number, columns: Partial<MessageEntry> = {}): MessageEntry => ({
  kind: 'message',
  row,
  to: `4741${String(row).padStart(6, '0')}`,
  messageId: `m-${row}`,
  json: `{"MessageId":"m-${row}"}`,
  ...columns,
});

function answer(verdict: Verdict, fields: Partial<Answer> = {}): Answer {
  return { verdict, status: 'HTTP 200', latencyMs: 1, throttled: false, ...fields };
}

const answered = (): Answer =>
  answer({ kind: 'results', results: [] }, { status: 'HTTP 200', httpStatus: 200 });
const unavailable = (retryAfterMs?: number): Answer =>
  answer(
    { kind: 'retry', reason: 'HTTP 503', retryAfterMs },
    { status: 'HTTP 503', httpStatus: 503, throttled: false },
  );
const throttled = (retryAfterMs: number): Answer =>
  answer(
    { kind: 'retry', reason: 'HTTP 429', retryAfterMs },
    { status: 'HTTP 429', httpStatus: 429, throttled: true },
  );
const refusedCredentials = (): Answer =>
  answer(
    { kind: 'failed', reason: 'credentials refused (HTTP 401)', authRefused: true },
    { status: 'HTTP 401', httpStatus: 401 },
  );
const proxyRefused = (): Answer =>
  answer(
    { kind: 'failed', reason: 'the proxy wants credentials', authRefused: false, stop: true },
    { status: 'PROXY_407' },
  );

/** A gateway that gives its answers in order, and fails the test when asked once too often. */
class ScriptedPoster implements Poster {
  readonly calls: [messages: readonly string[], messageIds: readonly string[]][] = [];
  constructor(private readonly answers: Answer[] = []) {}
  post(messages: readonly string[], messageIds: readonly string[]): Promise<Answer> {
    this.calls.push([messages, messageIds]);
    const next = this.answers.shift();
    if (!next) throw new Error(`posted ${this.calls.length} times, more than scripted`);
    return Promise.resolve(next);
  }
}

interface Options {
  outageGraceMs?: number;
  rate?: number;
  clock?: Clock;
  stop?: AbortSignal;
  abort?: AbortSignal;
  gateway?: Partial<LoopGateway>;
}

interface Fixture {
  state: SendState;
  poster: ScriptedPoster;
  /** Every event the state emitted, in order, with its arguments. */
  seen: [name: keyof SendEvents, ...args: unknown[]][];
  records: RowResult[];
  sleeps: number[];
}

function fixture(options: Options = {}, answers: Answer[] = []): Fixture {
  const events = new SendEmitter();
  const seen: Fixture['seen'] = [];
  const records: RowResult[] = [];
  for (const name of [
    'stop',
    'windowClosed',
    'unreachable',
    'outage',
    'recovered',
  ] as const satisfies (keyof SendEvents)[]) {
    events.on(name, (...args: unknown[]) => seen.push([name, ...args]));
  }
  events.on('record', (row) => records.push(row));
  const sleeps: number[] = [];
  const loop: LoopRun = {
    settings: {
      batchSize: 100,
      concurrency: 1,
      retries: 3,
      outageGraceMs: options.outageGraceMs ?? 0,
      rate: options.rate,
    },
    choices: {},
    io: {
      events,
      clock: options.clock ?? new InstantClock(sleeps),
      stop: options.stop,
      abort: options.abort,
    },
  };
  const poster = new ScriptedPoster(answers);
  const state = new SendState(loop, {
    poster,
    limiter: new RateLimiter(undefined, new InstantClock()),
    random: () => 0.5,
    ...options.gateway,
  });
  return { state, poster, seen, records, sleeps };
}

const aborted = (): AbortSignal => AbortSignal.abort();

describe('toRow', () => {
  it.each<[string, Entry, MessageResult, number, RowResult]>([
    [
      'accepted: every field the gateway gave, StatusCode 0 included',
      entry(1),
      {
        outcome: 'accepted',
        statusCode: 0,
        statusDescription: 'Accepted',
        transactionId: 'tx-1',
        extraInfo: { server: 'sim1' },
      },
      1,
      {
        row: 1,
        to: '4741000001',
        messageId: 'm-1',
        outcome: 'accepted',
        attempts: 1,
        statusCode: 0,
        statusDescription: 'Accepted',
        transactionId: 'tx-1',
        extraInfo: { server: 'sim1' },
      },
    ],
    [
      'rejected: its StatusCode and description, and no TransactionId it was not given',
      entry(2),
      { outcome: 'rejected', statusCode: 3, statusDescription: 'Invalid destination' },
      2,
      {
        row: 2,
        to: '4741000002',
        messageId: 'm-2',
        outcome: 'rejected',
        attempts: 2,
        statusCode: 3,
        statusDescription: 'Invalid destination',
      },
    ],
    [
      'failed: the reason only',
      entry(3),
      { outcome: 'failed', error: 'HTTP 503 (after 4 attempts)' },
      4,
      {
        row: 3,
        to: '4741000003',
        messageId: 'm-3',
        outcome: 'failed',
        attempts: 4,
        error: 'HTTP 503 (after 4 attempts)',
      },
    ],
    [
      'unknown: the reason only',
      entry(4),
      { outcome: 'unknown', error: 'HTTP 500 from the gateway' },
      1,
      {
        row: 4,
        to: '4741000004',
        messageId: 'm-4',
        outcome: 'unknown',
        attempts: 1,
        error: 'HTTP 500 from the gateway',
      },
    ],
    [
      'never sent: attempts 0',
      entry(5),
      { outcome: 'skipped', error: WINDOW_CLOSED },
      0,
      {
        row: 5,
        to: '4741000005',
        messageId: 'm-5',
        outcome: 'skipped',
        attempts: 0,
        error: WINDOW_CLOSED,
      },
    ],
    [
      "the entry's text columns, a count of 0 replaced characters included",
      entry(6, { segments: 2, encoding: 'UCS-2', normalized: 0 }),
      { outcome: 'accepted', statusCode: 0 },
      1,
      {
        row: 6,
        to: '4741000006',
        messageId: 'm-6',
        outcome: 'accepted',
        attempts: 1,
        statusCode: 0,
        segments: 2,
        encoding: 'UCS-2',
        normalized: 0,
      },
    ],
    [
      'a record decided before sending: its own result, not its entry kind',
      {
        kind: 'final',
        row: 7,
        to: '',
        messageId: 'x-7',
        result: { outcome: 'failed', error: 'ignored here' },
        segments: 1,
        encoding: 'GSM-7',
        normalized: 3,
      },
      { outcome: 'invalid', error: 'to: not a phone number' },
      0,
      {
        row: 7,
        to: '',
        messageId: 'x-7',
        outcome: 'invalid',
        attempts: 0,
        error: 'to: not a phone number',
        segments: 1,
        encoding: 'GSM-7',
        normalized: 3,
      },
    ],
  ])('%s', (_what, from, result, attempts, row) => {
    // Strict: a field the record does not have is absent, not present as undefined.
    expect(toRow(from, result, attempts)).toStrictEqual(row);
  });
});

describe('StateWriteError', () => {
  it.each<[string, boolean, StateWriteError]>([
    ['a journal that cannot be written', false, new StateWriteError('the disk is full')],
    ['a campaign another run took over', true, new StateWriteError('taken over by host b', true)],
  ])('%s: an Error with its message whole, takenOver %s', (_what, takenOver, error) => {
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe(takenOver ? 'taken over by host b' : 'the disk is full');
    expect(error.takenOver).toBe(takenOver);
  });
});

describe('SendState.record', () => {
  it.each<[string, () => Promise<void> | undefined]>([
    ['a write that resolves', () => Promise.resolve()],
    ['no hook to call', () => undefined],
  ])('is true for %s, and the run goes on', async (_what, write) => {
    const { state, seen } = fixture();
    expect(await state.record(write)).toBe(true);
    expect(state.stopped).toBeUndefined();
    expect(seen).toEqual([]);
  });

  const rejecting = (error: Error) => () => Promise.reject(error);
  const throwing = (thrown: unknown) => () => {
    throw thrown;
  };

  it.each<[string, () => Promise<void>, Stopped]>([
    [
      "a StateWriteError: stops the run with the error's own words",
      rejecting(new StateWriteError('the journal could not be written: ENOSPC')),
      {
        reason: 'the journal could not be written: ENOSPC',
        authRefused: false,
        stateUnwritable: true,
      },
    ],
    [
      'a StateWriteError of a takeover: says so',
      rejecting(new StateWriteError('host b took the campaign over', true)),
      {
        reason: 'host b took the campaign over',
        authRefused: false,
        stateUnwritable: true,
        takenOver: true,
      },
    ],
    [
      'any other Error: named as the campaign state',
      rejecting(new Error('EIO: i/o error, write')),
      {
        reason: 'campaign state could not be written: EIO: i/o error, write',
        authRefused: false,
        stateUnwritable: true,
      },
    ],
    [
      'a string thrown before the write began',
      throwing('out of inodes'),
      {
        reason: 'campaign state could not be written: out of inodes',
        authRefused: false,
        stateUnwritable: true,
      },
    ],
  ])('is false for %s', async (_what, write, stopped) => {
    const { state, seen } = fixture();
    expect(await state.record(write)).toBe(false);
    expect(state.stopped).toStrictEqual(stopped);
    expect(seen).toEqual([['stop', stopped]]);
  });

  it('keeps the first failure as the reason the run stopped', async () => {
    const { state, seen } = fixture();
    await state.record(() => Promise.reject(new StateWriteError('first')));
    expect(await state.record(() => Promise.reject(new StateWriteError('second', true)))).toBe(
      false,
    );
    expect(state.stopped).toStrictEqual({
      reason: 'first',
      authRefused: false,
      stateUnwritable: true,
    });
    expect(seen).toHaveLength(1);
  });
});

describe('SendState.stop', () => {
  it.each<[string, Parameters<SendState['stop']>, Stopped]>([
    [
      'the gateway refused',
      ['credentials refused', true],
      { reason: 'credentials refused', authRefused: true },
    ],
    ['the breaker tripped', ['5 in a row', false], { reason: '5 in a row', authRefused: false }],
    [
      'a takeover is said only of state that could not be written',
      ['odd', false, false, true],
      { reason: 'odd', authRefused: false },
    ],
    [
      'state that could not be written',
      ['disk full', false, true],
      { reason: 'disk full', authRefused: false, stateUnwritable: true },
    ],
    [
      'state another run took over',
      ['taken over', false, true, true],
      { reason: 'taken over', authRefused: false, stateUnwritable: true, takenOver: true },
    ],
  ])('%s: stopped is exactly its fields', (_what, args, stopped) => {
    const { state, seen } = fixture();
    state.stop(...args);
    expect(state.stopped).toStrictEqual(stopped);
    expect(seen).toEqual([['stop', stopped]]);
  });

  it('stops once: a later stop changes nothing and says nothing', () => {
    const { state, seen } = fixture();
    state.stop('credentials refused', true);
    state.stop('disk full', false, true);
    expect(state.stopped).toStrictEqual({ reason: 'credentials refused', authRefused: true });
    expect(seen).toHaveLength(1);
  });
});

describe('SendState.interrupted and halted', () => {
  it.each<[string, boolean, boolean, (f: Fixture) => void, Options]>([
    ['a run going on', false, false, () => undefined, {}],
    ['a stop signal (Ctrl-C)', true, true, () => undefined, { stop: aborted() }],
    ['an abort signal', true, true, () => undefined, { abort: aborted() }],
    ['a stopped run', false, true, ({ state }) => state.stop('why', false), {}],
    [
      'a closed window',
      false,
      true,
      ({ state }) => state.windowShut(),
      { gateway: { windowOpen: () => false } },
    ],
  ])('%s: interrupted %s, halted %s', (_what, interrupted, halted, act, options) => {
    const f = fixture(options);
    act(f);
    expect(f.state.interrupted()).toBe(interrupted);
    expect(f.state.halted()).toBe(halted);
  });
});

describe('SendState.windowShut', () => {
  it('is never shut without a send window', () => {
    const { state, seen } = fixture();
    expect(state.windowShut()).toBe(false);
    expect(state.windowClosed).toBe(false);
    expect(seen).toEqual([]);
  });

  it('is open while the window says so', () => {
    const { state, seen } = fixture({ gateway: { windowOpen: () => true } });
    expect(state.windowShut()).toBe(false);
    expect(state.windowShut()).toBe(false);
    expect(state.windowClosed).toBe(false);
    expect(seen).toEqual([]);
  });

  it('once closed stays closed, said once and not asked again', () => {
    const answers = [true, false, true];
    let asked = 0;
    const windowOpen = () => answers[asked++] ?? true;
    const { state, seen } = fixture({ gateway: { windowOpen } });
    expect([state.windowShut(), state.windowShut(), state.windowShut()]).toEqual([
      false,
      true,
      true,
    ]);
    expect(asked).toBe(2);
    expect(state.windowClosed).toBe(true);
    expect(seen).toEqual([['windowClosed']]);
  });
});

describe('the records a run leaves unsent', () => {
  it('begin with "not sent:", which the summary tells them by', () => {
    expect(NOT_SENT_PREFIX).toBe('not sent:');
    expect(WINDOW_CLOSED).toBe('not sent: the send window closed; --resume sends it');
  });

  it.each<[string, (f: Fixture) => void, Options, MessageResult]>([
    [
      'a stopped run: failed, with why it stopped',
      ({ state }) => state.stop('credentials refused (HTTP 401)', true),
      {},
      { outcome: 'failed', error: 'not sent: the run stopped (credentials refused (HTTP 401))' },
    ],
    [
      'a stopped run also interrupted: the stop decides',
      ({ state }) => state.stop('disk full', false, true),
      { stop: aborted() },
      { outcome: 'failed', error: 'not sent: the run stopped (disk full)' },
    ],
    [
      'an interrupted run: skipped, for --resume',
      () => undefined,
      { stop: aborted() },
      { outcome: 'skipped', error: 'not sent: the run was interrupted; --resume sends it' },
    ],
    [
      'an aborted run: skipped, for --resume',
      () => undefined,
      { abort: aborted() },
      { outcome: 'skipped', error: 'not sent: the run was interrupted; --resume sends it' },
    ],
    [
      'a closed window: skipped, for --resume',
      ({ state }) => state.windowShut(),
      { gateway: { windowOpen: () => false } },
      { outcome: 'skipped', error: WINDOW_CLOSED },
    ],
  ])('notSentResult after %s', (_what, act, options, result) => {
    const f = fixture(options);
    act(f);
    expect(f.state.notSentResult()).toStrictEqual(result);
  });

  it('leaveUnsent reports each record, never attempted, and counts them over batches', () => {
    const { state, records } = fixture();
    state.stop('credentials refused (HTTP 401)', true);
    state.leaveUnsent([entry(1), entry(2, { segments: 1, encoding: 'GSM-7' }), entry(3)]);
    state.leaveUnsent([entry(4)]);
    const error = 'not sent: the run stopped (credentials refused (HTTP 401))';
    expect(records).toStrictEqual([
      { row: 1, to: '4741000001', messageId: 'm-1', outcome: 'failed', attempts: 0, error },
      {
        row: 2,
        to: '4741000002',
        messageId: 'm-2',
        outcome: 'failed',
        attempts: 0,
        error,
        segments: 1,
        encoding: 'GSM-7',
      },
      { row: 3, to: '4741000003', messageId: 'm-3', outcome: 'failed', attempts: 0, error },
      { row: 4, to: '4741000004', messageId: 'm-4', outcome: 'failed', attempts: 0, error },
    ]);
    expect(state.notSent).toBe(4);
  });

  it('leaveUnsent of an empty batch reports and counts nothing', () => {
    const { state, records } = fixture({ stop: aborted() });
    state.leaveUnsent([]);
    expect(records).toEqual([]);
    expect(state.notSent).toBe(0);
  });

  it.each<[string, (f: Fixture) => void]>([
    ['a run going on', () => undefined],
    ['a stopped run', ({ state }) => state.stop('disk full', false, true)],
  ])(
    'leaveForResume reports a batch that never got through as the window closed, in %s',
    (_what, act) => {
      const f = fixture();
      act(f);
      f.state.leaveForResume([entry(8), entry(9)]);
      expect(f.records).toStrictEqual([
        {
          row: 8,
          to: '4741000008',
          messageId: 'm-8',
          outcome: 'skipped',
          attempts: 0,
          error: WINDOW_CLOSED,
        },
        {
          row: 9,
          to: '4741000009',
          messageId: 'm-9',
          outcome: 'skipped',
          attempts: 0,
          error: WINDOW_CLOSED,
        },
      ]);
      expect(f.state.notSent).toBe(2);
    },
  );
});

describe('SendState.pause', () => {
  it("sleeps on the run's clock", async () => {
    const { state, sleeps } = fixture();
    await state.pause(1_500);
    expect(sleeps).toEqual([1_500]);
  });

  it('does not sleep at all once interrupted', async () => {
    const { state, sleeps } = fixture({ abort: aborted() });
    await state.pause(1_500);
    expect(sleeps).toEqual([]);
  });

  it('ends at Ctrl-C, however long it was to be', async () => {
    const clock = new ManualClock();
    const stop = new AbortController();
    const { state } = fixture({ clock, stop: stop.signal });
    let woke = false;
    void state.pause(3_600_000).then(() => (woke = true));
    await settle();
    expect(woke).toBe(false);
    stop.abort();
    await settle();
    expect(woke).toBe(true);
    expect(clock.now()).toBe(0);
  });
});

describe('SendState.noteReached', () => {
  it.each<[string, boolean, boolean, Answer]>([
    ['an HTTP answer with results', true, false, answered()],
    ['an HTTP error status', true, false, unavailable()],
    [
      'no answer, but the request may have been processed',
      true,
      false,
      answer(
        { kind: 'unknown', reason: 'timed out after the request was sent' },
        { status: 'TIMEOUT' },
      ),
    ],
    [
      'a refused connection',
      false,
      false,
      answer(
        { kind: 'retry', reason: 'connection refused', unreachable: true },
        { status: 'ECONNREFUSED' },
      ),
    ],
    [
      'a certificate refused before anything was sent',
      false,
      false,
      answer(
        { kind: 'failed', reason: 'certificate expired', authRefused: false, stop: true },
        { status: 'CERT_HAS_EXPIRED' },
      ),
    ],
    ["the simulator's answer", true, true, { ...answered(), simulator: true }],
  ])('%s: reached %s, rehearsal %s', (_what, reached, rehearsal, given) => {
    const { state } = fixture();
    state.noteReached(given);
    expect(state.reached).toBe(reached);
    expect(state.rehearsal).toBe(rehearsal);
  });

  it('stays reached once reached', () => {
    const { state } = fixture();
    state.noteReached(answered());
    state.noteReached(
      answer({ kind: 'retry', reason: 'connection refused' }, { status: 'ECONNREFUSED' }),
    );
    expect(state.reached).toBe(true);
  });
});

describe('SendState.noteUnreachable', () => {
  const refused: Verdict = { kind: 'retry', reason: 'connection refused', unreachable: true };

  it('says once, at once, that an endpoint never reached refuses connections', () => {
    const { state, seen } = fixture();
    state.noteUnreachable(refused);
    state.noteUnreachable({ ...refused, reason: 'name not found' });
    expect(seen).toEqual([['unreachable', { reason: 'connection refused' }]]);
  });

  it.each<[string, Verdict, boolean]>([
    ['a retry that is not a refused connection', { kind: 'retry', reason: 'HTTP 503' }, false],
    ['a failure', { kind: 'failed', reason: 'HTTP 400', authRefused: false }, false],
    ['an unknown fate', { kind: 'unknown', reason: 'HTTP 500' }, false],
    ['a refused connection after the gateway answered once', refused, true],
  ])('says nothing for %s', (_what, verdict, reachedBefore) => {
    const { state, seen } = fixture();
    if (reachedBefore) state.noteReached(answered());
    state.noteUnreachable(verdict);
    expect(seen).toEqual([]);
  });
});

describe('SendState: the breaker', () => {
  it('takes its failures in a row (5 unless the gateway says), grace and limiter as given', () => {
    const limiter = new RateLimiter(undefined, new InstantClock());
    expect(fixture().state.maxFailures).toBe(5);
    const { state } = fixture({
      outageGraceMs: 30_000,
      gateway: { maxConsecutiveFailures: 2, limiter },
    });
    expect(state.maxFailures).toBe(2);
    expect(state.graceMs).toBe(30_000);
    expect(state.limiter).toBe(limiter);
  });

  it("makes a rate limiter of the run's rate when the gateway brings none", () => {
    const { state } = fixture({ rate: 40, gateway: { limiter: undefined } });
    expect(state.limiter.currentRate).toBe(40);
  });

  const unavailableVerdict: Verdict = { kind: 'retry', reason: 'HTTP 503' };

  it.each<[string, boolean, string]>([
    ['a gateway that answered before', true, '3 requests in a row failed; last: HTTP 503'],
    ['a gateway never reached', false, 'the gateway was never reached: HTTP 503'],
  ])(
    'without a grace, stops at the third failure in a row of three, for %s',
    (_what, reached, reason) => {
      const { state, seen } = fixture({ gateway: { maxConsecutiveFailures: 3 } });
      state.reached = reached;
      state.countFailure(unavailableVerdict);
      state.countFailure(unavailableVerdict);
      expect(state.consecutiveFailures).toBe(2);
      expect(state.stopped).toBeUndefined();
      state.countFailure(unavailableVerdict);
      expect(state.consecutiveFailures).toBe(3);
      expect(state.stopped).toStrictEqual({ reason, authRefused: false });
      expect(seen).toEqual([['stop', { reason, authRefused: false }]]);
    },
  );

  it.each<[string, Exclude<Verdict, { kind: 'results' }>, Stopped]>([
    [
      'refused credentials',
      { kind: 'failed', reason: 'credentials refused (HTTP 401)', authRefused: true },
      { reason: 'credentials refused (HTTP 401)', authRefused: true },
    ],
    [
      'a refusal no retry gets past (a proxy, a certificate)',
      { kind: 'failed', reason: 'the proxy refused', authRefused: false, stop: true },
      { reason: 'the proxy refused', authRefused: false },
    ],
  ])('stops at the first failure for %s, grace or not', (_what, verdict, stopped) => {
    const { state } = fixture({ outageGraceMs: 60_000 });
    state.countFailure(verdict);
    expect(state.stopped).toStrictEqual(stopped);
    expect(state.outage).toBeUndefined();
  });

  it.each<[string, 'stop' | 'wait', Exclude<Verdict, { kind: 'results' }>, number]>([
    [
      'refusals, with a grace (waiting will not help)',
      'stop',
      { kind: 'failed', reason: 'HTTP 400', authRefused: false },
      60_000,
    ],
    ['an unavailable gateway, with a grace', 'wait', { kind: 'retry', reason: 'HTTP 503' }, 60_000],
    ['unanswered requests, with a grace', 'wait', { kind: 'unknown', reason: 'HTTP 500' }, 60_000],
    ['unanswered requests, without a grace', 'stop', { kind: 'unknown', reason: 'HTTP 500' }, 0],
  ])('tripped by %s, the run must %s', (_what, then, verdict, outageGraceMs) => {
    const { state, seen } = fixture({ outageGraceMs, gateway: { maxConsecutiveFailures: 2 } }, [
      answered(),
    ]);
    state.reached = true;
    state.countFailure(verdict);
    expect(state.stopped).toBeUndefined();
    expect(state.outage).toBeUndefined();
    state.countFailure(verdict);
    const last = `2 requests in a row failed; last: ${verdict.reason}`;
    if (then === 'stop') {
      expect(state.stopped).toStrictEqual({ reason: last, authRefused: false });
      expect(state.outage).toBeUndefined();
    } else {
      expect(state.stopped).toBeUndefined();
      expect(state.outage).toBeDefined();
      expect(seen).toEqual([['outage', { reason: last, graceMs: outageGraceMs }]]);
    }
  });

  it('does not begin an outage wait for a run already halted', () => {
    const { state, seen } = fixture({
      outageGraceMs: 60_000,
      gateway: { maxConsecutiveFailures: 1, windowOpen: () => false },
    });
    state.windowShut();
    state.countFailure({ kind: 'retry', reason: 'HTTP 503' });
    expect(state.outage).toBeUndefined();
    expect(state.stopped).toBeUndefined();
    expect(seen).toEqual([['windowClosed']]);
  });
});

describe('SendState.waitForGateway', () => {
  it('probes with an empty request, with backoff, until the gateway answers', async () => {
    const { state, poster, seen, sleeps } = fixture({ outageGraceMs: 60_000 }, [
      unavailable(),
      unavailable(),
      answered(),
    ]);
    state.consecutiveFailures = 5;
    expect(await state.waitForGateway('HTTP 503')).toBe(true);
    expect(poster.calls).toEqual([
      [[], []],
      [[], []],
      [[], []],
    ]);
    // 250 ms, then full-jitter backoff at random 0.5: 250, 500, 1,000.
    expect(sleeps).toEqual([500, 750, 1_250]);
    expect(state.consecutiveFailures).toBe(0);
    expect(state.reached).toBe(true);
    expect(state.stopped).toBeUndefined();
    expect(state.outage).toBeUndefined();
    expect(seen).toEqual([
      ['outage', { reason: 'HTTP 503', graceMs: 60_000 }],
      ['recovered', { afterMs: 2_500 }],
    ]);
  });

  it('is one wait for every worker', async () => {
    const { state, poster, seen } = fixture({ outageGraceMs: 60_000 }, [answered()]);
    const first = state.waitForGateway('HTTP 503');
    const second = state.waitForGateway('HTTP 502');
    expect(second).toBe(first);
    expect(state.outage).toBe(first);
    expect(await Promise.all([first, second])).toEqual([true, true]);
    expect(poster.calls).toHaveLength(1);
    expect(seen.filter(([name]) => name === 'outage')).toHaveLength(1);
  });

  it('stops the run when the grace runs out, its last probe included', async () => {
    const { state, poster, sleeps } = fixture({ outageGraceMs: 1_500 }, [
      unavailable(),
      unavailable(),
      answer({ kind: 'retry', reason: 'connection refused' }, { status: 'ECONNREFUSED' }),
    ]);
    expect(await state.waitForGateway('HTTP 503')).toBe(false);
    // The last wait is what was left of the grace, not a whole backoff.
    expect(sleeps).toEqual([500, 750, 250]);
    expect(poster.calls).toHaveLength(3);
    expect(state.stopped).toStrictEqual({
      reason: 'the gateway stayed unusable for 1.5s (HTTP 503; last probe: connection refused)',
      authRefused: false,
    });
    expect(state.outage).toBeUndefined();
  });

  it.each<[string, Answer, Stopped]>([
    [
      'refused credentials',
      refusedCredentials(),
      { reason: 'credentials refused (HTTP 401)', authRefused: true },
    ],
    [
      'a refusal no waiting gets past',
      proxyRefused(),
      { reason: 'the proxy wants credentials', authRefused: false },
    ],
  ])('stops at once on %s', async (_what, probe, stopped) => {
    const { state, poster } = fixture({ outageGraceMs: 60_000 }, [probe]);
    expect(await state.waitForGateway('HTTP 503')).toBe(false);
    expect(poster.calls).toHaveLength(1);
    expect(state.stopped).toStrictEqual(stopped);
  });

  it('gives up without probing once interrupted, and does not stop the run', async () => {
    const { state, poster, seen } = fixture({ outageGraceMs: 60_000, stop: aborted() });
    expect(await state.waitForGateway('HTTP 503')).toBe(false);
    expect(poster.calls).toEqual([]);
    expect(state.stopped).toBeUndefined();
    expect(seen).toEqual([['outage', { reason: 'HTTP 503', graceMs: 60_000 }]]);
  });

  it("keeps a 429's Retry-After for the probes and batches after it", async () => {
    const limiterClock = new InstantClock();
    const { state } = fixture(
      { outageGraceMs: 60_000, gateway: { limiter: new RateLimiter(undefined, limiterClock) } },
      [throttled(4_000), answered()],
    );
    expect(await state.waitForGateway('HTTP 429')).toBe(true);
    // The second probe waited out the first one's Retry-After on the limiter.
    expect(limiterClock.sleeps).toEqual([4_000]);
  });

  it('can wait again after an outage ends', async () => {
    const { state, seen } = fixture({ outageGraceMs: 60_000 }, [answered(), answered()]);
    const first = state.waitForGateway('HTTP 503');
    await first;
    const second = state.waitForGateway('HTTP 504');
    expect(second).not.toBe(first);
    expect(await second).toBe(true);
    expect(seen.filter(([name]) => name === 'outage')).toHaveLength(2);
  });
});
