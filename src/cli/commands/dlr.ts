// `sms-send dlr` (receive delivery reports until Ctrl-C) and `sms-send dlr apply` (fold a log of them in).
import {
  applyDeliveryLog,
  startReceiver,
  type ReceiverRequest,
} from '../../campaign/deliveries.js';
import { dlrApplyDocument, receiverDocument } from '../../campaign/documents.js';
import { ExitCode } from '../../shared/errors.js';
import { isFile } from '../../shared/files.js';
import { colorFor } from '../ui/color.js';
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

/** Resolves on the first SIGINT or SIGTERM: the receiver runs until the operator stops it. */
function untilStopped(): Promise<void> {
  return new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export async function runDlr(flags: DlrFlags, program: string): Promise<ExitCode> {
  const started = await startReceiver(flags);
  const { receiver, reportPath, logPath, host } = started;
  // Listening for the stop before the template is out: a script that reads it may stop at once.
  const stopped = untilStopped();
  const err = colorFor('stderr');
  // The template alone on stdout, so a script can capture it; the rest is for the operator.
  // With --json, stdout holds the one summary document, and the template goes to stderr.
  (flags.json ? process.stderr : process.stdout).write(`${receiver.template}\n`);
  process.stderr.write(
    `${renderReceiverStart(
      {
        url: receiver.url,
        template: receiver.template,
        reportPath,
        logPath,
        host,
        reportExists: await isFile(reportPath),
        acceptUnsigned: started.verifier.acceptsUnsigned,
        program,
      },
      err,
    )}\n`,
  );
  const progress = showReceiverProgress(receiver, { verbose: flags.verbose === true }, err);
  await stopped;
  const fold = await receiver.stop();
  await started.recorded();
  progress.stop();
  const summary = {
    counts: receiver.counts,
    fold,
    confirmed: receiver.confirmed,
    reportPath,
    logPath,
    acceptUnsigned: flags.acceptUnsigned === true,
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
  const acceptUnsigned = flags.acceptUnsigned === true;
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(dlrApplyDocument(log, fold, paths, acceptUnsigned))}\n`
      : `${renderApply(log, fold, { ...paths, acceptUnsigned }, colorFor('stdout'))}\n`,
  );
  // Reports for MessageIds the report does not have: another campaign's log, or the wrong report.
  return fold.unmatched > 0 ? ExitCode.notAllAccepted : ExitCode.ok;
}
