// How a send ends, for the terminal and for machines: the summary (or its JSON document), and the
// typed error that carries a failing run's exit code to main.ts.
import { ExitCode, NotAllAcceptedError } from '../../shared/errors.js';
import { summaryDocument } from '../../campaign/documents.js';
import { endingError } from '../../campaign/ending.js';
import type { CampaignResult, LostAnswer, ResumeCounts } from '../../campaign/types.js';
import { commandFor, commandNotes, gatewayArgs, type Invocation } from '../invocation.js';
import { colorFor } from './color.js';
import { groupDigits } from '../../shared/count.js';
import { plural } from './format.js';
import { renderQuietLine, renderSummary } from './summary.js';

export interface EndOptions {
  simulated: boolean;
  campaign: string;
  json: boolean;
  quiet: boolean;
  /** Beside `summary` in the --json document (retry's `followUp`). */
  extra?: Record<string, unknown>;
  /** How the user ran the program, for the command that finishes the campaign. */
  invocation: Invocation;
}

/** Prints what the run ends with and returns its exit code, or throws the error that ends it. */
export function endRun(result: CampaignResult, options: EndOptions): ExitCode {
  const { send: run, summary, exitCode, windowClosed } = result;
  const out = colorFor('stdout');
  const resume =
    run.stopped || run.interrupted || windowClosed ? resumeCommand(options.invocation) : undefined;
  const document = summaryDocument(result, {
    campaign: options.campaign,
    simulated: options.simulated,
    resumeCommand: resume,
    extra: options.extra,
  });
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
      reportElsewhere: result.reportElsewhere,
    };
    process.stdout.write(`${renderSummary(summary, context, out)}\n`);
  }
  // Answers no sync made durable are the operator's to keep: on stderr, whatever the mode.
  if (run.left && run.left.lost.length > 0) {
    process.stderr.write(`${renderLostAnswers(run.left.lost)}\n`);
  }
  // Under --quiet the summary was not printed: the error says, on one line, how the run ended.
  const quiet = options.quiet && !options.json;
  const ending = (what: string, finish: string) =>
    quiet
      ? `${what}; ${renderQuietLine(summary)}; ${finish.toLowerCase()}: ${resume}`
      : `${what}. ${finish}:\n  ${resume}${commandNotes(resume ?? '')}`;
  const error = endingError(result, document, ending);
  if (error) throw error;
  if (quiet && exitCode !== ExitCode.ok) throw new NotAllAcceptedError(renderQuietLine(summary));
  if (!options.json && !options.quiet && summary.byOutcome.unknown > 0) {
    process.stderr.write(
      colorFor('stderr').yellow(`${unknownWarning(summary.byOutcome.unknown, run.resumed)}\n`),
    );
  }
  const again = summary.byOutcome.failed + summary.byOutcome.rejected;
  if (!options.json && !options.quiet && again > 0 && options.campaign !== undefined) {
    process.stderr.write(`${retryHint(again, options)}\n`);
  }
  return exitCode;
}

/**
 * The gateway's answers that could not be made durable anywhere, one line each: what the operator
 * keeps of them, since the resume may not find them.
 */
export function renderLostAnswers(lost: readonly LostAnswer[]): string {
  const lines = lost.map((answer) =>
    [
      `  row ${answer.row}`,
      `MessageId ${answer.messageId}`,
      answer.outcome,
      `StatusCode ${answer.statusCode ?? '-'}`,
      `TransactionId ${answer.transactionId ?? '-'}`,
    ].join('  '),
  );
  return [
    `${plural(lost.length, 'answer')} the gateway gave could not be made durable anywhere (keep this list):`,
    ...lines,
  ].join('\n');
}

/**
 * `30 records were rejected or failed: sms-send retry 3f2a… sends them again …`: a summary with
 * records the gateway did not take says how to send them again, once what refused them is fixed.
 */
function retryHint(n: number, options: EndOptions): string {
  const head = `${plural(n, 'record')} ${n === 1 ? 'was' : 'were'} rejected or failed (none of them reached a phone).`;
  // A follow-up reads the campaign's inputs again: standard input cannot be.
  if (options.invocation.args.includes('-')) {
    return (
      `${head} They were read from standard input, which \`retry\` cannot read again: save the ` +
      `records to a file and send it with --skip-sent-by ${options.campaign}, which leaves out ` +
      'every recipient this campaign accepted or may have sent to.'
    );
  }
  // Where the campaign went goes with it: the same gateway, config, profile and state directory.
  const command = commandFor(options.invocation, {
    args: ['retry', options.campaign, ...gatewayArgs(options.invocation.args)],
  });
  return `${head} Once what the StatusCodes and errors in the report say is fixed, send them again as a follow-up campaign with:\n  ${command}${commandNotes(command)}`;
}

/** The command line that finishes this campaign: the same arguments, with --resume. */
function resumeCommand(invocation: Invocation): string {
  return commandFor(invocation, { drop: ['--force'], add: ['--resume'] });
}

/**
 * What the unknown records are and what settles them. The one way to send them again says how
 * many could then go twice: none of them is known not to have been accepted.
 */
export function unknownWarning(n: number, resumed?: ResumeCounts): string {
  const them = n === 1 ? 'it' : 'them';
  const head =
    n === 1
      ? '1 record is unknown: the gateway may have it, so it is not sent again'
      : `${plural(n, 'record')} are unknown: the gateway may have them, so they are not sent again`;
  const unposted = resumed?.unposted ?? 0;
  const kinds =
    unposted > 0
      ? ` (${groupDigits(unposted)} of them recorded by an earlier run, not known to have left)`
      : '';
  return (
    `${head}${kinds}. A delivery report settles each: \`dlr\` receives them when the campaign ` +
    `has a --dlr-url. --retry-unknown sends ${them} again, and any of these ${groupDigits(n)} ` +
    'the gateway did accept would then go twice.'
  );
}
