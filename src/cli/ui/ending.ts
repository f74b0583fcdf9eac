// How a send ends, for the terminal and for machines: the summary (or its JSON document), and the
// typed error that carries a failing run's exit code to main.ts.
import {
  ExitCode,
  GatewayUnusableError,
  InterruptedError,
  NotAllAcceptedError,
  OutsideWindowError,
} from '../../shared/errors.js';
import type { CampaignResult } from '../../campaign/types.js';
import { colorFor } from './color.js';
import { plural, shellWord } from './format.js';
import { summaryJson } from './json.js';
import { renderQuietLine, renderSummary } from './summary.js';
import { renderWindowClosed } from './window.js';

export interface EndOptions {
  simulated: boolean;
  campaign: string;
  json: boolean;
  quiet: boolean;
  /** Beside `summary` in the --json document (retry's `followUp`). */
  extra?: Record<string, unknown>;
}

/** Prints what the run ends with and returns its exit code, or throws the error that ends it. */
export function endRun(result: CampaignResult, options: EndOptions): ExitCode {
  const { run, summary, exitCode, windowClosed } = result;
  const out = colorFor('stdout');
  const resume = run.stopped || run.interrupted || windowClosed ? resumeCommand() : undefined;
  const document = {
    ...summaryJson(
      summary,
      exitCode,
      options.simulated,
      run.stopped?.reason,
      run.resumed,
      options.campaign,
      resume,
    ),
    ...options.extra,
  };
  if (windowClosed) {
    (document.summary as Record<string, unknown>).windowClosed = {
      window: windowClosed.window,
      sent: windowClosed.sent,
      left: windowClosed.left,
      opensAt: new Date(windowClosed.opensAt).toISOString(),
    };
  }
  if (options.json) {
    // The summary is the one document on stdout; a failing run hands it to main.ts with its error.
    if (exitCode === ExitCode.ok || exitCode === ExitCode.notAllAccepted) {
      process.stdout.write(`${JSON.stringify(document)}\n`);
    }
  } else if (!options.quiet) {
    const context = {
      simulated: options.simulated,
      stoppedReason: run.stopped?.reason,
      resumed: run.resumed,
      interrupted: run.interrupted || windowClosed !== undefined,
      campaign: options.campaign,
      previousReport: result.previousReport,
    };
    process.stdout.write(`${renderSummary(summary, context, out)}\n`);
  }
  // Under --quiet the summary was not printed: the error says, on one line, how the run ended.
  const quiet = options.quiet && !options.json;
  const ending = (what: string, finish: string) =>
    quiet
      ? `${what}; ${renderQuietLine(summary)}; ${finish.toLowerCase()}: ${resume}`
      : `${what}. ${finish}:\n  ${resume}`;
  if (run.stopped) {
    const why = run.stopped.authRefused
      ? 'the gateway refused the credentials'
      : 'the gateway could not be used';
    throw new GatewayUnusableError(
      ending(`${why}: ${run.stopped.reason}`, 'Finish the campaign later with'),
      run.stopped.authRefused ? 'credentials-refused' : 'gateway-unusable',
      document,
    );
  }
  if (windowClosed) {
    throw new OutsideWindowError(
      ending(renderWindowClosed(windowClosed), 'Finish the campaign in the next window with'),
      document,
    );
  }
  if (run.interrupted) {
    throw new InterruptedError(
      ending(`interrupted: ${plural(run.notSent, 'record')} not sent`, 'Finish the campaign with'),
      document,
    );
  }
  if (quiet && exitCode !== ExitCode.ok) throw new NotAllAcceptedError(renderQuietLine(summary));
  if (!options.json && !options.quiet && summary.byOutcome.unknown > 0) {
    process.stderr.write(
      colorFor('stderr').yellow(
        `${unknownWarning(summary.byOutcome.unknown)} ` +
          'They are not resent automatically (--retry-unknown does, at the risk of sending twice).\n',
      ),
    );
  }
  return exitCode;
}

/** The command line that finishes this campaign: the same arguments, with --resume. */
function resumeCommand(): string {
  const args = process.argv.slice(2).filter((a) => a !== '--force' && a !== '--resume');
  return ['sms-send', ...args.map(shellWord), '--resume'].join(' ');
}

/** "1 record is unknown: the gateway may have it." and its plural. */
function unknownWarning(n: number): string {
  return n === 1
    ? '1 record is unknown: the gateway may have it.'
    : `${plural(n, 'record')} are unknown: the gateway may have them.`;
}
