// `sms-send dlr` (receive delivery reports until Ctrl-C) and `sms-send dlr apply` (fold a log of them in).
import {
  applyDeliveryLog,
  startReceiver,
  type ReceiverRequest,
} from '../../campaign/deliveries.js';
import { dlrApplyDocument, receiverDocument } from '../../campaign/documents.js';
import { ExitCode, InterruptedError } from '../../shared/errors.js';
import { commandText, type Program } from '../../shared/shell.js';
import { isFile } from '../../shared/files.js';
import { colorFor } from '../ui/color.js';
import { watchSignals } from '../ui/signals.js';
import {
  renderApply,
  renderReceiverStart,
  renderReceiverSummary,
  showReceiverProgress,
} from '../ui/dlr.js';

export interface DlrFlags extends ReceiverRequest {
  verbose?: boolean;
  json?: boolean;
}

export interface DlrApplyFlags extends DlrFlags {
  from?: string;
}

export async function runDlr(flags: DlrFlags, program: Program): Promise<ExitCode> {
  const started = await startReceiver(flags);
  const { receiver, reportPath, keptIn, logPath, host } = started;
  const err = colorFor('stderr');
  // Listening for the stop before the template is out: a script that reads it may stop at once.
  // The listeners stay until the summary is out: on a terminal the spinner's cursor handling
  // listens to signals too, and ends the process at once when it is the only listener left.
  const signals = watchSignals({
    first: () => undefined,
    second: () =>
      process.stderr.write(
        err.dim('stopping: recording the reports already acknowledged (the log has them all)\n'),
      ),
  });
  const stopped = new Promise((resolve) =>
    signals.stop.addEventListener('abort', resolve, { once: true }),
  );
  // The template alone on stdout, so a script can capture it; the rest is for the operator.
  // With --json, stdout holds the one summary document, and the template goes to stderr.
  (flags.json ? process.stderr : process.stdout).write(`${receiver.template}\n`);
  process.stderr.write(
    `${renderReceiverStart(
      {
        url: receiver.url,
        template: receiver.template,
        healthUrl: receiver.healthUrl,
        reportPath,
        keptIn,
        logPath,
        host,
        reportExists: reportPath !== undefined && (await isFile(reportPath)),
        program: program.name,
      },
      err,
    )}\n`,
  );
  const progress = showReceiverProgress(receiver, { verbose: flags.verbose === true }, err);
  try {
    await stopped;
    // A third signal gives up the last fold: the log has every report, and dlr apply folds it in.
    const abandoned = new Promise<never>((_, reject) =>
      signals.abandon.addEventListener(
        'abort',
        () => reject(abandonedFold(program, reportPath, logPath)),
        { once: true },
      ),
    );
    const fold = await Promise.race([receiver.stop(), abandoned]);
    await Promise.race([started.recorded(), abandoned]);
    progress.stop();
    return printSummary(flags, program, { receiver, fold, reportPath, keptIn, logPath });
  } finally {
    signals.dispose();
    await started.close();
  }
}

/** A third signal: the last fold given up. Every report acknowledged is in the log (and the store). */
function abandonedFold(
  program: Program,
  reportPath: string | undefined,
  logPath: string,
): InterruptedError {
  if (reportPath === undefined) {
    return new InterruptedError(`stopped; every report acknowledged is kept, and in ${logPath}`);
  }
  return new InterruptedError(
    `stopped before the reports received were folded into ${reportPath}; the log ` +
      `${logPath} has every one of them. Fold them in with:\n  ` +
      commandText(program, ['dlr', 'apply', '--report', reportPath, '--from', logPath]),
  );
}

type Receiving = Awaited<ReturnType<typeof startReceiver>>;

interface SummaryParts {
  receiver: Receiving['receiver'];
  fold: Awaited<ReturnType<Receiving['receiver']['stop']>>;
  reportPath: string | undefined;
  keptIn: string | undefined;
  logPath: string;
}

/** The receiver's summary (or its --json document); exit 1 when the last update was deferred. */
function printSummary(
  flags: DlrFlags,
  program: Program,
  { receiver, fold, reportPath, keptIn, logPath }: SummaryParts,
): ExitCode {
  const summary = {
    counts: receiver.counts,
    fold,
    confirmed: receiver.confirmed,
    reportPath,
    ...(keptIn === undefined ? {} : { keptIn }),
    logPath,
    program,
  };
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(receiverDocument(summary))}\n`
      : `${renderReceiverSummary(summary, colorFor('stdout'))}\n`,
  );
  // Nothing is lost when the last update could not be made (all is in the log), but the report is behind.
  return fold?.kind === 'deferred' ? ExitCode.notAllAccepted : ExitCode.ok;
}

export async function runDlrApply(flags: DlrApplyFlags): Promise<ExitCode> {
  const { reportPath, log, fold } = await applyDeliveryLog(flags);
  const paths = { reportPath, logPath: flags.from ?? '' };
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(dlrApplyDocument(log, fold, paths))}\n`
      : `${renderApply(log, fold, paths, colorFor('stdout'))}\n`,
  );
  // Reports for MessageIds the report does not have: another campaign's log, or the wrong report.
  return fold.unmatched > 0 ? ExitCode.notAllAccepted : ExitCode.ok;
}
