// Live progress: an ora spinner on a TTY, nothing animated elsewhere. Listens to send events only.
import ora, { type Ora } from 'ora';
import type { SendEmitter } from '../../send/events.js';
import type { Tally } from '../../report/summary.js';
import { formatCount, formatRate } from './format.js';

export interface Progress {
  stop(): void;
}

export function showProgress(
  events: SendEmitter,
  tally: Tally,
  total: number,
  label: string,
): Progress {
  if (!process.stderr.isTTY) return { stop() {} };
  const spinner: Ora = ora({
    text: `${label} 0 / ${formatCount(total)}`,
    stream: process.stderr,
  }).start();
  let retries = 0;
  const render = () => {
    const seconds = (Date.now() - tally.startedAt) / 1000;
    const rate = seconds > 0 ? tally.answered / seconds : 0;
    const { accepted, rejected, failed, unknown } = tally.byOutcome;
    const problems = rejected + failed + unknown;
    spinner.text =
      `${label} ${formatCount(tally.total)} / ${formatCount(total)}  ` +
      `accepted ${formatCount(accepted)}` +
      (problems > 0 ? `  not accepted ${formatCount(problems)}` : '') +
      (retries > 0 ? `  retries ${formatCount(retries)}` : '') +
      `  ${formatRate(rate)}`;
  };
  const timer = setInterval(render, 100);
  events.on('retry', () => retries++);
  return {
    stop() {
      clearInterval(timer);
      render();
      spinner.stop();
    },
  };
}
