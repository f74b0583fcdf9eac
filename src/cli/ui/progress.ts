// Live progress of the validation and send passes: an ora spinner on a TTY; elsewhere a plain line
// now and then. Listens to events and counters only; the lines themselves are pure renderers.
import type { Outcome } from '../../message/outcome.js';
import { systemClock } from '../../shared/clock.js';
import type { Tally } from '../../report/summary.js';
import type { SendEmitter } from '../../send/events.js';
import { formatCount, formatDuration, formatLimit, formatRate, plural } from './format.js';
import { canSpin, startLiveLine, type StatusStream } from './spinner.js';
import { renderWaiting } from './window.js';

export interface Progress {
  /** A message for the operator that must not be lost under the spinner. */
  note(text: string): void;
  stop(): void;
}

export interface ProgressOptions {
  label: string;
  total: number;
  /** Seconds between plain progress lines when stderr is not a terminal; 0 turns them off. */
  intervalSeconds: number;
  quiet: boolean;
  verbose: boolean;
  /** Where the batches go, as the summary names it: the first refused connection names it. */
  endpoint?: string;
  /** How long a request waits for its answer (--timeout): the line says it until one comes. */
  timeoutMs?: number;
}

/** What one send progress line shows. */
export interface SendProgress {
  label: string;
  /** Messages whose batch got an answer, or its verdict (failed, unknown). */
  sent: number;
  total: number;
  accepted: number;
  /** Rejected, failed and unknown. */
  problems: number;
  retries: number;
  /** Messages the gateway answered per second of this run. */
  rate: number;
  elapsedMs: number;
  /**
   * Why no batch goes out now: `waiting for the gateway: connection refused`, `holding answers:
   * …`. The rate and the ETA are left out meanwhile: they would only decay.
   */
  waiting?: string;
}

/**
 * `sending N / M (P%)  accepted A  R msg/s  ETA T`; within `width` columns, the least
 * telling parts are left out whole (the rate first, then retries, accepted, the ETA), never cut.
 */
export function renderSendProgress(p: SendProgress, width = Infinity): string {
  const percent = p.total > 0 ? Math.floor((p.sent / p.total) * 100) : 100;
  // The ETA comes from this run's pace over the whole of it, once there is a pace to go by.
  const eta =
    p.waiting === undefined && p.sent > 0 && p.sent < p.total && p.elapsedMs >= 1000
      ? `ETA ${formatEta(((p.total - p.sent) * p.elapsedMs) / p.sent)}`
      : '';
  const counted = `${formatCount(p.sent)} / ${formatCount(p.total)} (${percent}%)`;
  // In the order they are given up when the line is too long.
  const optional: Array<[order: number, text: string]> = [
    [2, `accepted ${formatCount(p.accepted)}`],
    [4, p.problems > 0 ? `not accepted ${formatCount(p.problems)}` : ''],
    [1, p.retries > 0 ? `retries ${formatCount(p.retries)}` : ''],
    [0, p.waiting === undefined ? formatRate(p.rate) : ''],
    [3, eta],
    [5, p.waiting ?? ''],
  ];
  const heads = [`${p.label} ${counted}`, counted, `${percent}%`];
  for (const head of heads) {
    for (let dropped = 0; dropped <= optional.length; dropped++) {
      const kept = optional.filter(([order, text]) => order >= dropped && text !== '');
      const text = [head, ...kept.map(([, t]) => t)].join('  ');
      if (text.length <= width) return text;
    }
  }
  return heads.at(-1)!;
}

/**
 * `nothing answers at http://127.0.0.1:9 (connection refused): …`: a run whose first request could
 * not connect, said before any retry, with what finds the cause.
 */
export function renderUnreachable(endpoint: string | undefined, reason: string): string {
  const where = endpoint === undefined ? 'the gateway' : endpoint;
  return (
    `nothing answers at ${where} (${reason}): if the endpoint is wrong, stop (Ctrl-C) and fix it; ` +
    '`sms-send check` says what is wrong. Trying again meanwhile'
  );
}

/** `validating: 120,000 records read  41,250 records/s` (the total is not known until the end). */
export function renderValidationProgress(records: number, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (records * 1000) / elapsedMs : 0;
  return `validating: ${plural(records, 'record')} read  ${formatCount(Math.round(rate))} records/s`;
}

/**
 * The messages sent and not accepted: a stopped run reports the records it never sent as failed,
 * and records never sent are not "not accepted".
 */
export function notAccepted(problems: number, sent: number, accepted: number): number {
  return Math.min(problems, Math.max(0, sent - accepted));
}

function formatEta(ms: number): string {
  return ms < 60_000 ? `${Math.ceil(ms / 1000)} s` : formatDuration(ms);
}

/** What the progress line follows of a run, kept up to date by its events. */
interface Watched {
  retries: number;
  sent: number;
  /** Why the run waits (for the gateway, for the disk), while it does: the line says so. */
  outage?: string;
  held?: string;
  /** While the run waits for its send window, the spinner counts down to the opening instead. */
  window?: { opensAt: number; timeZone: string };
}

function watch(events: SendEmitter): Watched {
  const seen: Watched = { retries: 0, sent: 0 };
  events.on('retry', () => seen.retries++);
  events.on('batch', (b) => (seen.sent += b.size));
  events.on('waiting', (wait) => (seen.window = wait));
  events.on('outage', ({ reason }) => (seen.outage = reason));
  events.on('recovered', () => (seen.outage = undefined));
  events.on('stateHeld', ({ reason }) => (seen.held = reason));
  events.on('stateKept', () => (seen.held = undefined));
  // A wait that ends in a stop is over: the line stops saying it waits.
  events.on('stop', () => {
    seen.outage = undefined;
    seen.held = undefined;
  });
  return seen;
}

/**
 * Why no batch goes out now, for the progress line, short enough for it on any terminal (the
 * line above it says the cause whole); undefined while batches go.
 */
function waitingText(seen: Watched, timeoutMs: number | undefined): string | undefined {
  if (seen.held !== undefined) return 'holding answers: state not written';
  if (seen.outage !== undefined) return 'waiting for the gateway';
  // Before the first answer, nothing moves: what it waits for, and how long at most.
  if (seen.sent === 0 && timeoutMs !== undefined) {
    return `waiting for the gateway's first answer (up to ${formatLimit(timeoutMs)})`;
  }
  return undefined;
}

export function showProgress(
  events: SendEmitter,
  tally: Tally,
  options: ProgressOptions,
  stream: StatusStream = process.stderr,
): Progress {
  const seen = watch(events);

  const line = () => {
    // The spinner's frame and a column to spare (a line that fills the last column wraps), read
    // each time: the terminal may have been resized.
    const width = canSpin(stream) ? (stream.columns ?? 80) - 3 : Infinity;
    if (seen.window && systemClock.now() < seen.window.opensAt)
      return renderWaiting({ ...seen.window, now: systemClock.now() }, width);
    seen.window = undefined;
    const elapsedMs = systemClock.now() - tally.startedAt;
    // This run's answers only: what a resumed run found settled is not its progress.
    const ofRun = (outcome: Outcome) => tally.byOutcome[outcome] - tally.earlierByOutcome[outcome];
    const accepted = ofRun('accepted');
    const problems = ofRun('rejected') + ofRun('failed') + ofRun('unknown');
    const waiting = waitingText(seen, options.timeoutMs);
    return renderSendProgress(
      {
        label: options.label,
        sent: seen.sent,
        total: options.total,
        accepted,
        problems: notAccepted(problems, seen.sent, accepted),
        retries: seen.retries,
        rate: elapsedMs > 0 ? (tally.answered * 1000) / elapsedMs : 0,
        elapsedMs,
        ...(waiting === undefined ? {} : { waiting }),
      },
      width,
    );
  };

  if (options.quiet) return { note() {}, stop() {} };

  const live = startLiveLine(line(), stream);
  // Why nothing moves: waiting for a gateway that stopped answering is said, not left to guess;
  // one that was never reached, at once, since the endpoint itself may be wrong.
  events.on('unreachable', ({ reason }) => live.say(renderUnreachable(options.endpoint, reason)));
  events.on('outage', ({ reason, graceMs }) =>
    live.say(
      `the gateway is not answering (${reason}); waiting up to ${formatDuration(graceMs)} for it, no new batches meanwhile`,
    ),
  );
  events.on('waiting', (wait) => live.say(renderWaiting(wait)));
  events.on('windowClosed', () =>
    live.say('the send window closed: finishing the batches in flight, taking no new ones'),
  );
  events.on('recovered', ({ afterMs }) =>
    live.say(`the gateway answers again after ${formatDuration(afterMs)}; sending on`),
  );
  // Why a run whose disk filled does not end at once: it is keeping the answers it holds.
  events.on('stateHeld', ({ answers, reason, graceMs }) =>
    live.say(
      `${reason}; no new batches. Holding ${plural(answers, 'answer')} the journal could not ` +
        `record, trying again for up to ${formatDuration(graceMs)}`,
    ),
  );
  events.on('stateKept', ({ afterMs }) =>
    live.say(`the answers held are recorded after ${formatDuration(afterMs)}`),
  );
  if (options.verbose) {
    events.on('batch', (b) =>
      live.say(
        `batch ${formatCount(b.batch)}: ${plural(b.size, 'message')}, ${b.status}, ${formatCount(Math.round(b.latencyMs))} ms, ${plural(b.attempts, 'attempt')}`,
      ),
    );
    events.on('retry', (r) =>
      live.say(
        `batch ${formatCount(r.batch)}: retry ${r.attempt} in ${formatCount(Math.round(r.delayMs))} ms (${r.reason})`,
      ),
    );
  }
  // Plain lines every interval through a wait of hours would flood a cron mail: the wait was said once.
  return ticking(live, line, options.intervalSeconds, () => seen.window !== undefined);
}

export interface ValidationProgress {
  /** The records read so far; cheap enough to call for every record, and safe to pass around. */
  read: (records: number) => void;
  stop(): void;
}

/** The validation pass has no total until it ends: records read and their rate. */
export function showValidationProgress(
  options: Pick<ProgressOptions, 'intervalSeconds' | 'quiet'>,
  stream: StatusStream = process.stderr,
): ValidationProgress {
  if (options.quiet) return { read() {}, stop() {} };
  const startedAt = systemClock.now();
  let records = 0;
  const line = () => renderValidationProgress(records, systemClock.now() - startedAt);
  const live = startLiveLine(line(), stream);
  const progress = ticking(live, line, options.intervalSeconds);
  return {
    read: (n) => {
      records = n;
    },
    stop() {
      progress.stop();
    },
  };
}

/** A spinner redrawn ten times a second, or without one a plain line every interval. */
function ticking(
  live: ReturnType<typeof startLiveLine>,
  line: () => string,
  intervalSeconds: number,
  /** While true, no plain progress line is printed (the spinner still turns). */
  idle: () => boolean = () => false,
): Progress {
  const timer = live.spinning
    ? setInterval(() => live.update(line()), 100)
    : intervalSeconds > 0
      ? setInterval(() => {
          const text = line();
          if (!idle()) live.say(text);
        }, intervalSeconds * 1000)
      : undefined;
  timer?.unref();
  return {
    note: (text) => live.say(text),
    stop() {
      if (timer) clearInterval(timer);
      live.stop(line());
    },
  };
}
