// Delivery reports for a campaign's report, without a terminal: the receiver started where it is
// asked to listen, a log folded in, and the rows they confirm recorded in the campaign's state.
import type { Program } from '../shared/shell.js';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { resolveSettings } from '../config/resolve.js';
import type { FoldDone, FoldResult, LogCounts } from '../dlr/apply.js';
import type { DlrVerifier } from '../dlr/proof.js';
import type { DlrReceiver, ReceiverCounts, ReceiverOptions } from '../dlr/receiver.js';
import { closeState, openState, withState, type CampaignState } from '../journal/open-store.js';
import type { Settings } from '../config/settings.js';
import type { CampaignStore, DeliveryShelf } from '../journal/store.js';
import { systemClock } from '../shared/clock.js';
import { readableFormat } from '../report/format.js';
import { LockedError, UsageError } from '../shared/errors.js';
import { isFile } from '../shared/files.js';
import { CANARY } from '../shared/dlr-proof.js';

/** Next to the simulator's 8099, so the two can run side by side with no flags. */
const DEFAULT_PORT = 8098;

/** Which report, and how its campaign's state is found (as a send finds it). */
export interface DeliveriesRequest {
  report?: string;
  stateDir?: string;
  config?: string;
  profile?: string;
}

export interface ReceiverRequest extends DeliveriesRequest {
  port?: number;
  host?: string;
  /** The log of every report received; default beside the report. */
  out?: string;
}

export interface StartedReceiver {
  receiver: DlrReceiver;
  verifier: DlrVerifier;
  /** The report folded into; none for a receiver that keeps reports in the store alone. */
  reportPath: string | undefined;
  /** Where the reports are kept for every host (a database's place), when the store keeps them. */
  keptIn: string | undefined;
  logPath: string;
  host: string;
  port: number;
  /** Resolves once every confirmed row the receiver folded in is recorded in the campaign's state. */
  recorded: () => Promise<void>;
  /** Closes the campaign store, once the receiver stopped and its folds are recorded. */
  close: () => Promise<void>;
}

/**
 * Starts the receiver: for a report, each fold it makes recorded in the campaign's state; with a
 * store that keeps delivery reports, each report kept there before it is acknowledged.
 */
export async function startReceiver(request: ReceiverRequest): Promise<StartedReceiver> {
  const { reportPath, logPath, host, port } = await receiverPlace(request);
  const state = await findState(request);
  const { store } = state;
  const shelf = store.deliveries;
  const opened = async () => {
    if (reportPath === undefined && shelf === undefined) throw reportRequired();
    const verifier = await openVerifier(reportPath, store);
    const keep = shelf && keepIn(shelf);
    const receiver = await listen(verifier, { reportPath, logPath, host, port, keep });
    return { verifier, receiver };
  };
  const { verifier, receiver } = await opened().catch(async (error: unknown) => {
    await closeState(state);
    throw error;
  });
  // Folds are serialised by the receiver; their state updates are too.
  let recording = Promise.resolve();
  receiver.on('fold', (fold) => {
    if (reportPath === undefined) return;
    recording = recording.then(() => recordInState(store, reportPath, fold));
  });
  const recorded = () => recording;
  const close = () => closeState(state);
  const keptIn = shelf === undefined ? undefined : store.where;
  return { receiver, verifier, reportPath, keptIn, logPath, host, port, recorded, close };
}

/**
 * Keeps a believed report under its proof's campaign, or as a canary's; one whose proof names
 * neither is not kept.
 */
function keepIn(shelf: DeliveryShelf): ReceiverOptions['keep'] {
  return async (report, campaign) => {
    if (campaign === undefined || report.status === undefined) return;
    const { messageId, status, timestamp, transactionId, receivedAt } = report;
    const kept = { messageId, status, timestamp, transactionId, receivedAt };
    if (campaign === CANARY) await shelf.addCanary(kept);
    else await shelf.add(campaign, kept);
  };
}

function reportRequired(): UsageError {
  return new UsageError(
    '--report is required: the state directory keeps no delivery reports, so the receiver ' +
      'records them in the report (with a state URL, reports are kept in the database and ' +
      '--report is optional)',
  );
}

async function listen(
  verifier: DlrVerifier,
  place: Omit<ReceiverOptions, 'verify'> & { host: string; port: number },
): Promise<DlrReceiver> {
  const { DlrReceiver } = await import('../dlr/receiver.js');
  const { host, port } = place;
  return DlrReceiver.start({ ...place, verify: verifier.verify }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        throw new UsageError(`port ${port} is in use; pick another with --port`);
      }
      if (error.code === 'EACCES' || error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
        throw new UsageError(`cannot listen on ${host}:${port}: ${error.message}`);
      }
      throw error;
    },
  );
}

export interface AppliedLog {
  reportPath: string;
  log: LogCounts;
  fold: FoldDone;
}

/** Folds a log of delivery reports into the report; refuses (exit 2, 4) when it cannot. */
export async function applyDeliveryLog(
  request: DeliveriesRequest & { from?: string },
): Promise<AppliedLog> {
  const reportPath = requireReport(request);
  if (request.from === undefined) throw new UsageError('--from is required');
  if (!(await isFile(reportPath))) {
    throw new UsageError(`report ${reportPath} does not exist`, 'no-report');
  }
  const from = request.from;
  return withState(await storeSettings(request), ({ store }) => applyWith(store, reportPath, from));
}

async function applyWith(
  store: CampaignStore,
  reportPath: string,
  from: string,
): Promise<AppliedLog> {
  const { readLogInto, foldIntoReport } = await import('../dlr/apply.js');
  const { DeliveryBook } = await import('../dlr/matching.js');
  const book = new DeliveryBook();
  const verifier = await openVerifier(reportPath, store);
  const log = await readLogInto(from, book, undefined, verifier.verify);
  const fold = await foldIntoReport(reportPath, book);
  if (fold.kind === 'deferred') {
    switch (fold.reason) {
      case 'missing':
        throw new UsageError(`report ${reportPath} does not exist`, 'no-report');
      case 'locked':
        throw new LockedError(
          `cannot fold the log into ${reportPath} yet: ${fold.message}; nothing was changed; ` +
            'run dlr apply again once that run has ended',
        );
      case 'error':
        throw new UsageError(`cannot update ${reportPath}: ${fold.message}`);
    }
  }
  await recordInState(store, reportPath, fold);
  return { reportPath, log, fold };
}

/**
 * Records rows a fold confirmed (unknown → accepted) in the state of the campaign that wrote the
 * report: its counts, and its journal, so a --resume agrees. Best effort: the report is already
 * right, so a state directory that cannot be found or written changes nothing else.
 */
async function recordInState(
  store: CampaignStore,
  reportPath: string,
  fold: FoldResult,
): Promise<void> {
  if (fold.kind !== 'updated' || fold.confirmedRows.length === 0) return;
  try {
    await store.recordConfirmed(reportPath, fold.confirmedRows);
  } catch {
    // The campaign's counts stay those of its run; nothing is lost.
  }
}

/**
 * The campaign store a send finds (--state-dir, SMS_SEND_STATE_DIR, config stateDir, or the
 * default). Only the state is a setting here: dlr apply's --from is a log, not the originator
 * that send's --from sets.
 */
async function storeSettings(request: DeliveriesRequest): Promise<Settings> {
  return resolveSettings({
    cwd: process.cwd(),
    env: process.env,
    flags: request.stateDir === undefined ? {} : { stateDir: request.stateDir },
    configPath: request.config,
    profile: request.profile,
  });
}

async function findState(request: DeliveriesRequest): Promise<CampaignState> {
  return openState(await storeSettings(request));
}

/** Believes only reports with a valid proof for the report's campaign (any of the store's without one). */
async function openVerifier(
  reportPath: string | undefined,
  store: CampaignStore,
): Promise<DlrVerifier> {
  const { DlrVerifier } = await import('../dlr/proof.js');
  return DlrVerifier.open({
    store,
    ...(reportPath === undefined ? {} : { reportPath }),
    clock: systemClock,
  });
}

function requireReport(request: DeliveriesRequest): string {
  if (request.report === undefined) throw new UsageError('--report is required');
  readableFormat(request.report);
  return request.report;
}

/** The receiver's log when there is no report to put it beside: in the current folder. */
export const STORE_RECEIVER_LOG = 'sms-send-dlr.ndjson';

/** Where the receiver listens and writes, checked before anything is opened. */
async function receiverPlace(
  request: ReceiverRequest,
): Promise<{ reportPath?: string; logPath: string; host: string; port: number }> {
  const port = request.port ?? DEFAULT_PORT;
  const host = request.host ?? '127.0.0.1';
  if (request.report === undefined) {
    return { logPath: request.out ?? STORE_RECEIVER_LOG, host, port };
  }
  const reportPath = requireReport(request);
  const folder = dirname(resolve(reportPath));
  if (
    !(await stat(folder).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
    throw new UsageError(`--report ${reportPath}: the folder ${folder} does not exist`);
  }
  const { defaultLogPath } = await import('../dlr/log.js');
  const logPath = request.out ?? defaultLogPath(reportPath);
  if (resolve(logPath) === resolve(reportPath)) {
    throw new UsageError('--out must not be the report itself');
  }
  return { reportPath, logPath, host, port };
}

/** What a receiver's session came to, for its summary (printed, or `dlr --json`). */
export interface ReceiverSummary {
  counts: ReceiverCounts;
  fold: FoldResult | undefined;
  /** Rows the session's folds turned from unknown into accepted. */
  confirmed?: number;
  reportPath: string | undefined;
  /** Where the reports were kept for every host, when the store keeps them. */
  keptIn?: string;
  logPath: string;
  /** How the user runs sms-send, for the command that folds the log in later. */
  program: Program;
}
