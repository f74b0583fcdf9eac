// `sms-send dlr` (receive delivery reports until Ctrl-C) and `sms-send dlr apply` (fold a log of them in).
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { resolveSettings } from '../../config/resolve.js';
import type { FoldResult } from '../../dlr/apply.js';
import { ExitCode, LockedError, UsageError } from '../../shared/errors.js';
import { readableFormat } from '../../report/format.js';
import { isFile } from '../../shared/files.js';
import { colorFor } from '../ui/color.js';
import type { DlrVerifier } from '../../dlr/proof.js';
import {
  applyJson,
  receiverSummaryJson,
  renderApply,
  renderReceiverStart,
  renderReceiverSummary,
  showReceiverProgress,
} from '../ui/dlr.js';

/** Next to the simulator's 8099, so the two can run side by side with no flags. */
const DEFAULT_PORT = 8098;

export interface DlrFlags {
  report?: string;
  port?: number;
  host?: string;
  out?: string;
  verbose?: boolean;
  acceptUnsigned?: boolean;
  json?: boolean;
  stateDir?: string;
  config?: string;
  profile?: string;
}

export interface DlrApplyFlags extends DlrFlags {
  from?: string;
}

/**
 * Records rows a fold confirmed (unknown → accepted) in the state of the campaign that wrote the
 * report: its counts, and its journal, so a --resume agrees. Best effort: the report is already
 * right, so a state directory that cannot be found or written changes nothing else.
 */
async function recordInState(reportPath: string, fold: FoldResult, flags: DlrFlags): Promise<void> {
  if (fold.kind !== 'updated' || fold.confirmedRows.length === 0) return;
  try {
    const stateDir = await findStateDir(flags);
    const { recordConfirmed } = await import('../../journal/settle.js');
    await recordConfirmed(stateDir, reportPath, fold.confirmedRows);
  } catch {
    // The campaign's counts stay those of its run; nothing is lost.
  }
}

/**
 * The state directory a send finds (--state-dir, SMS_SEND_STATE_DIR, config stateDir, or the
 * default). Only --state-dir of the flags is a setting here: dlr apply's --from is a log, not
 * the originator that send's --from sets.
 */
async function findStateDir(flags: DlrFlags): Promise<string> {
  const { stateDir } = await resolveSettings({
    cwd: process.cwd(),
    env: process.env,
    flags: flags.stateDir === undefined ? {} : { stateDir: flags.stateDir },
    configPath: flags.config,
    profile: flags.profile,
  });
  return stateDir;
}

/** Believes only reports with a valid proof for the report's campaign (or, asked to, unsigned ones). */
async function openVerifier(reportPath: string, flags: DlrFlags): Promise<DlrVerifier> {
  const { DlrVerifier } = await import('../../dlr/proof.js');
  return DlrVerifier.open({
    stateDir: await findStateDir(flags),
    reportPath,
    acceptUnsigned: flags.acceptUnsigned === true,
  });
}

function requireReport(flags: DlrFlags): string {
  if (flags.report === undefined) throw new UsageError('--report is required');
  readableFormat(flags.report);
  return flags.report;
}

/** Where the receiver listens and writes, checked before anything is opened. */
async function receiverPlace(
  flags: DlrFlags,
): Promise<{ reportPath: string; logPath: string; host: string; port: number }> {
  const reportPath = requireReport(flags);
  const port = flags.port ?? DEFAULT_PORT;
  const folder = dirname(resolve(reportPath));
  if (
    !(await stat(folder).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
    throw new UsageError(`--report ${reportPath}: the folder ${folder} does not exist`);
  }
  const { defaultLogPath } = await import('../../dlr/log.js');
  const logPath = flags.out ?? defaultLogPath(reportPath);
  if (resolve(logPath) === resolve(reportPath)) {
    throw new UsageError('--out must not be the report itself');
  }
  return { reportPath, logPath, host: flags.host ?? '127.0.0.1', port };
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
  const { reportPath, logPath, host, port } = await receiverPlace(flags);
  const verifier = await openVerifier(reportPath, flags);
  const { DlrReceiver } = await import('../../dlr/receiver.js');
  const receiver = await DlrReceiver.start({
    reportPath,
    logPath,
    host,
    port,
    verify: verifier.verify,
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') {
      throw new UsageError(`port ${port} is in use; pick another with --port`);
    }
    if (error.code === 'EACCES' || error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
      throw new UsageError(`cannot listen on ${host}:${port}: ${error.message}`);
    }
    throw error;
  });

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
        acceptUnsigned: verifier.acceptsUnsigned,
        program,
      },
      err,
    )}\n`,
  );
  const progress = showReceiverProgress(receiver, { verbose: flags.verbose === true }, err);
  // Folds are serialised by the receiver; their state updates are too.
  let recording = Promise.resolve();
  receiver.on('fold', (fold) => {
    recording = recording.then(() => recordInState(reportPath, fold, flags));
  });
  await stopped;
  const fold = await receiver.stop();
  await recording;
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
      ? `${JSON.stringify(receiverSummaryJson(summary))}\n`
      : `${renderReceiverSummary(summary, colorFor('stdout'))}\n`,
  );
  // Nothing is lost when the last update could not be made (all is in the log), but the report is behind.
  return fold?.kind === 'deferred' ? ExitCode.notAllAccepted : ExitCode.ok;
}

export async function runDlrApply(flags: DlrApplyFlags): Promise<ExitCode> {
  const reportPath = requireReport(flags);
  if (flags.from === undefined) throw new UsageError('--from is required');
  if (!(await isFile(reportPath))) {
    throw new UsageError(`report ${reportPath} does not exist`, 'no-report');
  }
  const { readLogInto, foldIntoReport } = await import('../../dlr/apply.js');
  const { DeliveryBook } = await import('../../dlr/matching.js');
  const book = new DeliveryBook();
  const verifier = await openVerifier(reportPath, flags);
  const log = await readLogInto(flags.from, book, undefined, verifier.verify);
  const fold = await foldIntoReport(reportPath, book);
  if (fold.kind === 'deferred') {
    switch (fold.reason) {
      case 'missing':
        throw new UsageError(`report ${reportPath} does not exist`, 'no-report');
      case 'locked':
        throw new LockedError(`${fold.message} Run dlr apply again once it has finished.`);
      case 'error':
        throw new UsageError(`cannot update ${reportPath}: ${fold.message}`);
    }
  }
  await recordInState(reportPath, fold, flags);
  const paths = { reportPath, logPath: flags.from };
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(applyJson(log, fold, paths, flags.acceptUnsigned === true))}\n`
      : `${renderApply(log, fold, { ...paths, acceptUnsigned: flags.acceptUnsigned === true }, colorFor('stdout'))}\n`,
  );
  // Reports for MessageIds the report does not have: another campaign's log, or the wrong report.
  return fold.unmatched > 0 ? ExitCode.notAllAccepted : ExitCode.ok;
}
