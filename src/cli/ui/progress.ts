// Live progress: an ora spinner on a TTY; elsewhere a plain line now and then. Listens to events only.
import type { Tally } from '../../report/summary.js';
import type { SendEmitter } from '../../send/events.js';
import { formatCount, formatRate, plural } from './format.js';
import { startLiveLine, type StatusStream } from './spinner.js';

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
}

export function showProgress(
  events: SendEmitter,
  tally: Tally,
  options: ProgressOptions,
  stream: StatusStream = process.stderr,
): Progress {
  let retries = 0;
  events.on('retry', () => retries++);
  const line = () => {
    const seconds = (Date.now() - tally.startedAt) / 1000;
    const rate = seconds > 0 ? tally.answered / seconds : 0;
    const { accepted, rejected, failed, unknown } = tally.byOutcome;
    const problems = rejected + failed + unknown;
    return (
      `${options.label} ${formatCount(tally.done)} / ${formatCount(options.total)}  ` +
      `accepted ${formatCount(accepted)}` +
      (problems > 0 ? `  not accepted ${formatCount(problems)}` : '') +
      (retries > 0 ? `  retries ${formatCount(retries)}` : '') +
      `  ${formatRate(rate)}`
    );
  };

  if (options.quiet) return { note() {}, stop() {} };

  const live = startLiveLine(line(), stream);
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

  // Without a spinner, a plain line now and then shows a log reader that the run is alive.
  const timer = live.spinning
    ? setInterval(() => live.update(line()), 100)
    : options.intervalSeconds > 0
      ? setInterval(() => live.say(line()), options.intervalSeconds * 1000)
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
