// Progress lines of the validation and send passes: pure renderers, and the plain lines off a terminal.
import { afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  notAccepted,
  renderSendProgress,
  renderValidationProgress,
  showProgress,
  showValidationProgress,
} from '../../../src/cli/ui/progress.js';
import { Tally } from '../../../src/report/summary.js';
import { SendEmitter } from '../../../src/send/events.js';
import { loadSpinner, type StatusStream } from '../../../src/cli/ui/spinner.js';

// The fake terminals here are not stderr, which is what ora is loaded for at start.
beforeAll(() => loadSpinner());

describe('renderSendProgress', () => {
  const base = {
    label: 'sending',
    sent: 0,
    total: 3000,
    accepted: 0,
    problems: 0,
    retries: 0,
    rate: 0,
    elapsedMs: 0,
  };

  it('percentage always; an ETA once there is a pace to go by', () => {
    expect(renderSendProgress(base)).toMatchInlineSnapshot(
      `"sending 0 / 3,000 (0%)  accepted 0  0.0 msg/s"`,
    );
    expect(
      renderSendProgress({
        ...base,
        sent: 1200,
        accepted: 1100,
        problems: 100,
        rate: 600,
        elapsedMs: 2000,
      }),
    ).toMatchInlineSnapshot(
      `"sending 1,200 / 3,000 (40%)  accepted 1,100  not accepted 100  600 msg/s  ETA 3 s"`,
    );
    expect(
      renderSendProgress({
        ...base,
        sent: 100,
        accepted: 100,
        retries: 2,
        rate: 1,
        elapsedMs: 100_000,
      }),
    ).toMatchInlineSnapshot(
      `"sending 100 / 3,000 (3%)  accepted 100  retries 2  1.0 msg/s  ETA 48 min 20 s"`,
    );
    expect(
      renderSendProgress({ ...base, sent: 3000, accepted: 3000, rate: 1500, elapsedMs: 2000 }),
    ).toMatchInlineSnapshot(`"sending 3,000 / 3,000 (100%)  accepted 3,000  1,500 msg/s"`);
  });

  // The reproduction: while a full disk held a run, its rate and ETA decayed.
  it.each([
    [Infinity, 'sending 1,200 / 3,000 (40%)  accepted 1,200  holding answers: state not written'],
    // An 80-column terminal: the count of accepted goes before the reason does.
    [77, 'sending 1,200 / 3,000 (40%)  holding answers: state not written'],
  ])('while the disk holds the run, at %s columns: why, and no rate or ETA', (width, line) => {
    const held = { ...base, sent: 1200, accepted: 1200, rate: 600, elapsedMs: 60_000 };
    expect(
      renderSendProgress({ ...held, waiting: 'holding answers: state not written' }, width),
    ).toBe(line);
  });
});

describe('the progress line on a narrow terminal', () => {
  const busy = {
    label: 'simulating',
    sent: 123_456,
    total: 1_000_000,
    accepted: 120_000,
    problems: 3456,
    retries: 12,
    rate: 212.4,
    elapsedMs: 600_000,
  };

  it.each([
    [
      Infinity,
      'simulating 123,456 / 1,000,000 (12%)  accepted 120,000  not accepted 3,456  retries 12  212 msg/s  ETA 71 min',
    ],
    [77, 'simulating 123,456 / 1,000,000 (12%)  not accepted 3,456  ETA 71 min'],
    [57, 'simulating 123,456 / 1,000,000 (12%)  not accepted 3,456'],
    [37, 'simulating 123,456 / 1,000,000 (12%)'],
    [27, '123,456 / 1,000,000 (12%)'],
    [17, '12%'],
  ])('in %s columns: %s', (width, line) => {
    const text = renderSendProgress(busy, width);
    expect(text).toBe(line);
    expect(text.length).toBeLessThanOrEqual(width);
  });

  it('a 60-column terminal gets whole lines: no word broken across two', async () => {
    // A terminal outside CI: ora draws no spinner where a CI variable is set (is-interactive).
    vi.stubEnv('CI', undefined);
    onTestFinished(() => void vi.unstubAllEnvs());
    const events = new SendEmitter();
    const tally = new Tally();
    const stream = ttyStream(60);
    const progress = showProgress(
      events,
      tally,
      { label: 'simulating', total: 1_000_000, intervalSeconds: 10, quiet: false, verbose: false },
      stream,
    );
    events.emit('retry', { batch: 1, attempt: 1, delayMs: 10, reason: 'HTTP 503' });
    events.emit('batch', {
      batch: 1,
      size: 500,
      attempts: 2,
      latencyMs: 212,
      status: '200',
      verdict: 'results',
    });
    await new Promise((resolve) => setTimeout(resolve, 250));
    progress.stop();
    // eslint-disable-next-line no-control-regex -- ANSI sequences are what it strips
    const lines = stream.out.replace(/\u001b\[[\d;?]*[A-Za-z]/g, '').split(/\r|\n/);
    expect(lines.some((l) => l.includes('simulating 500 / 1,000,000'))).toBe(true);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(60);
  });
});

describe('validation progress', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('renders records read and their rate', () => {
    expect(renderValidationProgress(1, 0)).toMatchInlineSnapshot(
      `"validating: 1 record read  0 records/s"`,
    );
    expect(renderValidationProgress(120_000, 2900)).toMatchInlineSnapshot(
      `"validating: 120,000 records read  41,379 records/s"`,
    );
  });

  it('off a terminal: a plain line every interval, nothing for a short pass', () => {
    vi.useFakeTimers();
    const stream = plainStream();
    const short = showValidationProgress({ intervalSeconds: 10, quiet: false }, stream);
    short.read(500);
    short.stop();
    expect(stream.out).toBe('');

    const long = showValidationProgress({ intervalSeconds: 10, quiet: false }, stream);
    long.read(40_000);
    vi.advanceTimersByTime(10_000);
    long.read(80_000);
    vi.advanceTimersByTime(10_000);
    long.stop();
    expect(stream.out).toMatchInlineSnapshot(`
      "validating: 40,000 records read  4,000 records/s
      validating: 80,000 records read  4,000 records/s
      "
    `);
  });
});

describe('send progress after a resume', () => {
  afterEach(() => vi.useRealTimers());

  it('counts only what this run got answers for, not what the journal had settled', () => {
    vi.useFakeTimers();
    const stream = plainStream();
    const tally = new Tally();
    const events = new SendEmitter();
    const row = (n: number, outcome: 'accepted' | 'rejected') => ({
      row: n,
      to: '4741000000',
      messageId: `m-${n}`,
      outcome,
      attempts: 1,
    });
    for (let n = 1; n <= 110; n++) tally.add(row(n, 'accepted'), true);
    for (let n = 111; n <= 120; n++) tally.add(row(n, 'rejected'), true);
    const progress = showProgress(
      events,
      tally,
      { label: 'sending', total: 200, intervalSeconds: 10, quiet: false, verbose: false },
      stream,
    );
    for (let n = 121; n <= 140; n++) tally.add(row(n, n % 10 === 0 ? 'rejected' : 'accepted'));
    events.emit('batch', {
      batch: 1,
      size: 20,
      attempts: 1,
      latencyMs: 5,
      status: 'HTTP 200',
      verdict: 'results',
    });
    vi.advanceTimersByTime(10_000);
    progress.stop();
    expect(stream.out).toContain('sending 20 / 200 (10%)  accepted 18  not accepted 2');
  });
});

describe('send progress before the first answer', () => {
  afterEach(() => vi.useRealTimers());

  it('says it waits for the gateway, and how long at most, until an answer comes', () => {
    vi.useFakeTimers();
    const stream = plainStream();
    const events = new SendEmitter();
    const progress = showProgress(
      events,
      new Tally(),
      {
        label: 'sending',
        total: 20,
        intervalSeconds: 10,
        quiet: false,
        verbose: false,
        timeoutMs: 30_000,
      },
      stream,
    );
    vi.advanceTimersByTime(10_000);
    const waiting =
      "sending 0 / 20 (0%)  accepted 0  waiting for the gateway's first answer (up to 30 s)";
    expect(stream.out).toBe(`${waiting}\n`);
    events.emit('batch', {
      batch: 1,
      size: 5,
      attempts: 1,
      latencyMs: 5,
      status: 'HTTP 200',
      verdict: 'results',
    });
    vi.advanceTimersByTime(10_000);
    progress.stop();
    const after = stream.out.slice(waiting.length + 1);
    expect(after).toContain('sending 5 / 20 (25%)');
    expect(after).not.toContain('waiting');
  });
});

/** A stream that is no terminal, keeping what is written to it. */
/** A terminal `columns` wide that keeps what is written to it; cursor moves start a new line. */
function ttyStream(columns: number): StatusStream & { out: string } {
  return {
    isTTY: true,
    columns,
    out: '',
    write(text: string) {
      this.out += text;
      return true;
    },
    cursorTo() {
      this.out += '\r';
      return true;
    },
    moveCursor() {
      this.out += '\r';
      return true;
    },
    clearLine() {
      return true;
    },
  } as StatusStream & { out: string };
}

function plainStream(): StatusStream & { out: string } {
  return {
    isTTY: false,
    out: '',
    write(text: string) {
      this.out += text;
      return true;
    },
  };
}

describe('notAccepted', () => {
  it.each([
    // rejected/failed/unknown, sent, accepted → shown
    [100, 1200, 1100, 100],
    // A stop reported 1,800 records it never sent as failed: only what was sent counts.
    [1900, 1200, 1100, 100],
    [0, 0, 0, 0],
  ])('%i problems, %i sent, %i accepted → %i', (problems, sent, accepted, shown) => {
    expect(notAccepted(problems, sent, accepted)).toBe(shown);
  });
});
