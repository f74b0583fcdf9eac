// Live progress: an ora spinner on a TTY; elsewhere a plain line now and then. Listens to events only.
import ora from 'ora';
import type { Tally } from '../../report/summary.js';
import type { SendEmitter } from '../../send/events.js';
import { formatCount, formatRate } from './format.js';

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

  if (options.verbose) {
    events.on('batch', (b) => {
      const text = `batch ${b.batch}: ${b.size} messages, ${b.status}, ${Math.round(b.latencyMs)} ms, ${b.attempts} attempt${b.attempts === 1 ? '' : 's'}`;
      if (spinner) spinner.clear();
      process.stderr.write(`${text}\n`);
      spinner?.render();
    });
    events.on('retry', (r) => {
      process.stderr.write(
        `batch ${r.batch}: retry ${r.attempt} in ${Math.round(r.delayMs)} ms (${r.reason})\n`,
      );
    });
  }

  // A pseudo-terminal with no size (some CI runners, `script`) makes the spinner redraw forever.
  const spinner =
    process.stderr.isTTY && (process.stderr.columns ?? 0) > 0
      ? ora({ text: line(), stream: process.stderr, discardStdin: false }).start()
      : undefined;
  const timer = spinner
    ? setInterval(() => (spinner.text = line()), 100)
    : options.intervalSeconds > 0
      ? setInterval(() => process.stderr.write(`${line()}\n`), options.intervalSeconds * 1000)
      : undefined;
  timer?.unref();

  return {
    note(text) {
      if (spinner) {
        spinner.clear();
        process.stderr.write(`${text}\n`);
        spinner.render();
      } else process.stderr.write(`${text}\n`);
    },
    stop() {
      if (timer) clearInterval(timer);
      if (spinner) {
        spinner.text = line();
        spinner.stop();
      }
    },
  };
}
