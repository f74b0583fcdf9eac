// The main job without a terminal: campaign identity and state, the validation pass, then the send pass.
import { readFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve as resolvePath } from 'node:path';
import type { Settings } from '../config/settings.js';
import { ExitCode, InterruptedError, UsageError } from '../errors.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { exists } from '../shared/files.js';
import type { InputFile } from '../input/open.js';
import { claimCampaign, inspectCampaign, type Claim } from '../journal/claim.js';
import {
  campaignIdentity,
  canonicalJson,
  contentHash,
  expandCampaignName,
  expandPlaceholders,
  hashFile,
  type CampaignIdentity,
  type CampaignShape,
} from '../journal/identity.js';
import { ephemeralKey, loadDlrSecret } from '../journal/dlr-secret.js';
import { acquireLock, lockPath, type Lock } from '../journal/lock.js';
import { campaignPaths, MANIFEST_VERSION, readManifest } from '../journal/state.js';
import { readCampaign } from '../message/campaign.js';
import type { Mapping } from '../message/columns.js';
import { identitySettings, type InputSettings } from '../message/implied.js';
import type { ValidationWorkers } from '../message/parallel.js';
import { planCampaign, type Plan } from '../message/plan.js';
import { loadSuppression } from '../message/suppress.js';
import { recordedDeliveries, restoreDeliveries } from '../dlr/carry.js';
import { compileTemplate } from '../message/template.js';
import { OUTCOMES, type Outcome } from '../report/outcome.js';
import { Tally, type RunSummary } from '../report/summary.js';
import { reportFormat } from '../report/format.js';
import { reportExistsError } from '../report/writer.js';
import { entryOf } from './entries.js';
import type { SendEmitter } from './events.js';
import {
  checkInputsUnchanged,
  holdOriginal,
  rowsResent,
  selectRows,
  type FollowUp,
} from './follow-up.js';
import { settledRows } from './resume.js';
import { runCampaign, type RunResult } from './run.js';
import { awaitWindow, windowGate } from './schedule.js';
import type { Poster } from './send.js';
import { readSpool, SpoolWriter } from './spool.js';
import { describeWindow, windowState, type SendWindow } from './window.js';

export interface CampaignRequest {
  /** The inputs in order; standard input already copied to a file (it is read more than once). */
  files: InputFile[];
  settings: Settings;
  /** To the built-in simulator: a campaign of its own, apart from the same content sent for real. */
  simulate: boolean;
  mapping: Mapping;
  /** `--text`, or the contents of `--text-file`. */
  template?: string;
  inputFormat?: string;
  delimiter?: string;
  limit?: number;
  dedupe?: boolean;
  skipInvalid?: boolean;
  /** `--report`, with {date}, {time} and {name} still to fill. */
  report?: string;
  force: boolean;
  resume: boolean;
  retryUnknown: boolean;
  /** Outside the send window, end at once (exit 5) instead of waiting for it to open. */
  noWait?: boolean;
  /** Validate only: no state is claimed, nothing is spooled; repeats are counted for the plan. */
  dryRun: boolean;
  now: Date;
  /** Told the number of records validated so far, as they are validated (progress for the UI). */
  onValidated?: (records: number) => void;
  /** Tuning of the validation pass's worker threads; the tests force them on small files. */
  workers?: ValidationWorkers;
  /**
   * A follow-up campaign (`sms-send retry`): its own identity, only the chosen rows of the
   * original inputs (which must not have changed), new MessageIds, each row linked to the original.
   */
  followUp?: FollowUp;
}

/** Why the plan refuses the run; the CLI words it (renderInvalid, …) and exits 2. */
export type Refusal = 'invalid-input' | 'empty-input' | 'over-max-cost';

export interface PreparedCampaign {
  identity: CampaignIdentity;
  reportPath: string;
  plan: Plan;
  refusal?: Refusal;
  /** Records this run will send: on resume, only what an earlier run did not settle. */
  toSend: number;
  /** An earlier run's journal is continued. */
  resuming: boolean;
  /** A follow-up campaign (`sms-send retry`), which takes no input flags such as --skip-invalid. */
  followUp: boolean;
  /** Dry run only: what the campaign's state would refuse a real run with (exit 2, or 4). */
  stateRefusal?: UsageError;
  /** Counts every row as it is reported; progress reads it while the send pass runs. */
  tally: Tally;
  /** The send pass; once, and only when the plan was not refused and this is no dry run. */
  send(options: SendPassOptions): Promise<CampaignResult>;
  /** Releases the locks and the spool; a campaign that never started leaves no state behind. */
  close(): Promise<void>;
}

export interface SendPassOptions {
  poster: Poster;
  /** What the manifest records as the target: the endpoint, or "simulator". */
  target: string;
  events: SendEmitter;
  stopSignal?: AbortSignal;
  abortSignal?: AbortSignal;
  /** Wall time for the send window and waits; the system's unless a test injects one. */
  clock?: Clock;
}

/** How a run the send window stopped stands: what it sent, what is left, when it opens again. */
export interface WindowClosed {
  sent: number;
  left: number;
  /** `09:00-21:00 mon-fri Europe/Oslo` */
  window: string;
  timeZone: string;
  now: number;
  opensAt: number;
}

export interface CampaignResult {
  run: RunResult;
  summary: RunSummary;
  /** The earlier run's report, when this resumed run wrote the complete one elsewhere. */
  previousReport?: string;
  /** Set when the send window closed before every record was sent (exit 5). */
  windowClosed?: WindowClosed;
  exitCode: ExitCode;
}

/**
 * Everything before the first message: identity, the campaign's state (exit 4 while another run
 * holds it; exit 2 when it was sent or is unfinished, unless --force or --resume), the report's
 * lock, and the validation pass, which writes every record ready to send to the spool.
 */
export async function prepareCampaign(request: CampaignRequest): Promise<PreparedCampaign> {
  const { settings, files, now } = request;
  const template = request.template === undefined ? undefined : compileTemplate(request.template);
  const hashes = await hashInputs(files);
  // Every list is read (and refused, exit 2) before the campaign's state is looked at.
  const suppression = await loadSuppression(settings.suppress, settings.country);
  const { followUp } = request;
  if (followUp) checkInputsUnchanged(files, hashes, followUp);
  const given = {
    inputFormat: request.inputFormat,
    delimiter: request.delimiter,
    mapping: request.mapping,
  };
  const shapeOf = (input: InputSettings): CampaignShape => ({
    target: request.simulate ? 'simulator' : 'gateway',
    mapping: input.mapping,
    template: request.template,
    inputFormat: input.inputFormat,
    delimiter: input.delimiter,
    country: settings.country,
    defaults: settings.defaults,
    // Only when on, so the IDs of campaigns from before the flag existed stay as they were.
    gsmNormalize: settings.gsmNormalize || undefined,
  });
  const name =
    settings.campaign === undefined
      ? undefined
      : expandCampaignName(settings.campaign, files[0]!.label, now);
  // The manifest keeps the settings as given: a follow-up rebuilds the messages with them.
  const shape = followUp?.shape ?? shapeOf(given);
  const identity =
    followUp?.identity ??
    (await knownIdentity(settings.stateDir, hashes, name, [
      shapeOf(await identitySettings(files, given, request.template !== undefined)),
      shape,
    ]));
  const reportPath = expandReportPath(request.report, files[0]!.label, now, identity.id);
  reportFormat(reportPath);
  if (!(await exists(dirname(reportPath) || '.'))) {
    throw new UsageError(
      `cannot write the report ${reportPath}: the folder ${dirname(reportPath)} does not exist`,
    );
  }

  let claim: Claim | undefined;
  let reportLock: Lock | undefined;
  let spool: SpoolWriter | undefined;
  let originalLock: Lock | undefined;
  const close = async () => {
    await spool?.close().catch(() => undefined);
    await reportLock?.release();
    await claim?.release();
    await originalLock?.release();
  };
  const claimOptions = {
    stateDir: settings.stateDir,
    identity,
    force: request.force,
    resume: request.resume,
    inputs: hashes,
  };
  try {
    // A dry run looks at the state without taking it: it says what a real run would be refused
    // with, and on --resume counts only what is left.
    const inspected = request.dryRun ? await inspectCampaign(claimOptions) : undefined;
    if (!request.dryRun) {
      if (followUp) originalLock = await holdOriginal(settings.stateDir, followUp);
      claim = await claimCampaign(claimOptions);
      // The report's own lock keeps a delivery-report fold from rewriting it under this run.
      reportLock = await acquireLock(lockPath(reportPath), `writing the report ${reportPath}`);
      await clearStaleReportLocks(claim.previous?.reports ?? [], reportPath);
      if (!request.force && !request.resume && (await exists(reportPath))) {
        throw reportExistsError(reportPath);
      }
      spool = await SpoolWriter.create(claim.paths.spool);
    }
    const journal = claim?.journal ?? inspected?.journal;
    // Rows a follow-up re-sent are the follow-up's now: a resume of the original leaves them.
    const resent =
      journal && !followUp
        ? await rowsResent(settings.stateDir, identity.id, shape.target)
        : undefined;
    const settled = journal ? settledRows(journal, request.retryUnknown, resent) : () => false;
    let toSend = 0;
    const writer = spool;
    // A dry run that resumes nothing spools nothing: it skips building each entry.
    const spooling = writer !== undefined || journal !== undefined;
    const countRepeats = request.dryRun && !request.dedupe;
    const tallied = {
      gsmNormalize: normalizes(request),
      template: request.template,
      pricePerSegment: settings.pricePerSegment,
    };
    const reader = readCampaign({
      files,
      inputFormat: request.inputFormat,
      delimiter: request.delimiter,
      mapping: request.mapping,
      template,
      defaults: settings.defaults,
      country: settings.country,
      campaignKey: identity.stem,
      now: sendsFrom(settings.sendWindow, now),
      limit: request.limit,
      dedupe: request.dedupe,
      suppress: suppression,
      gsmNormalize: normalizes(request),
      maxSegments: settings.maxSegments,
      // A dry run sends no URL: a key of its own makes proofs of the same length.
      dlrSigner: {
        key: request.dryRun ? ephemeralKey() : await loadDlrSecret(settings.stateDir),
        campaign: identity.id,
      },
      // A follow-up picks its rows out of built records, which parts validated by worker threads
      // (spooled as they come) are not: it is read on this thread.
      parallel: followUp
        ? undefined
        : { ...request.workers, spool: spooling, digests: countRepeats, tally: tallied },
    });
    const plan = await planCampaign(
      followUp ? selectRows(reader, followUp.rows, identity.stem) : reader,
      {
        batchSize: settings.batchSize,
        ...tallied,
        currency: settings.currency,
        maxCost: settings.maxCost,
        onRecord: spooling
          ? (record) => {
              const entry = entryOf(record);
              if (entry.kind === 'message' && !settled(entry.row)) toSend++;
              writer?.add(entry);
              return undefined;
            }
          : undefined,
        onSpool: spooling
          ? (lines, messageRows) => {
              for (const row of messageRows) if (!settled(row)) toSend++;
              writer?.addLines(lines);
              return undefined;
            }
          : undefined,
        onProgress: request.onValidated,
        countRepeats,
      },
    );
    await spool?.close();
    spool = undefined;
    const refusal: Refusal | undefined =
      plan.fileProblems.length > 0 || (plan.invalid > 0 && !request.skipInvalid)
        ? 'invalid-input'
        : plan.records === 0
          ? 'empty-input'
          : plan.cost?.maxCost !== undefined && plan.cost.total > plan.cost.maxCost
            ? 'over-max-cost'
            : undefined;
    const tally = new Tally();
    let sent = false;
    return {
      identity,
      reportPath,
      plan,
      refusal,
      toSend,
      resuming: journal !== undefined,
      followUp: followUp !== undefined,
      stateRefusal: inspected?.refusal,
      tally,
      close,
      async send(options) {
        if (!claim || refusal || sent) throw new Error('this campaign cannot be sent');
        sent = true;
        return sendPass(
          request,
          { claim, identity, shape, reportPath, plan, tally, resent },
          options,
          hashes,
        );
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function sendPass(
  request: CampaignRequest,
  prepared: {
    claim: Claim;
    identity: CampaignIdentity;
    shape: CampaignShape;
    reportPath: string;
    plan: Plan;
    tally: Tally;
    /** Rows of this campaign its follow-ups re-sent (a resume of the original leaves them). */
    resent?: ReadonlyMap<number, string>;
  },
  options: SendPassOptions,
  hashes: { sha256: string; bytes: number }[],
): Promise<CampaignResult> {
  const { claim, identity, shape, reportPath, plan, tally, resent } = prepared;
  const { followUp } = request;
  const { settings } = request;
  const clock = options.clock ?? systemClock;
  const window = settings.sendWindow;
  // Waiting happens holding the campaign's lock but before it is marked running: a run stopped
  // while it waits has sent nothing and leaves the campaign as it found it.
  if (window) {
    const open = await awaitWindow(window, {
      clock,
      events: options.events,
      noWait: request.noWait === true,
      signal: options.stopSignal,
    });
    if (!open) {
      throw new InterruptedError('interrupted while waiting for the send window: nothing was sent');
    }
    tally.startedAt = Date.now();
  }
  const startedAt = new Date().toISOString();
  const report = resolvePath(reportPath);
  await claim.start({
    v: MANIFEST_VERSION,
    id: identity.id,
    named: identity.named,
    contentHash: identity.contentHash,
    inputs: request.files.map((f, i) => ({
      path: f.label === '-' ? '-' : resolvePath(f.path),
      ...hashes[i]!,
    })),
    target: options.target,
    report,
    startedAt,
    updatedAt: startedAt,
    status: 'running',
    records: plan.records,
    counts: Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>,
    shape,
    ...(settings.suppress.length > 0
      ? { suppress: settings.suppress.map((list) => resolvePath(list.path)) }
      : {}),
    ...(followUp ? { followUp: { ...followUp.of, rows: [...followUp.rows] } } : {}),
    // Signed from its first run on; a campaign an earlier version began keeps unsigned reports.
    ...(claim.previous === undefined || claim.previous.signedDlr ? { signedDlr: true } : {}),
  });
  const onRecord = tally.add.bind(tally);
  options.events.on('record', onRecord);
  let sent = 0;
  // Batches refused or never answered were not sent; an unknown one may have been, so counts.
  const onBatch = (batch: { size: number; verdict: string }) => {
    if (batch.verdict !== 'failed') sent += batch.size;
  };
  options.events.on('batch', onBatch);
  // A resume writes the report afresh from the journal: the deliveries earlier reports recorded
  // are read first (the report may be rewritten in place) and written back once it is complete.
  // The newest earlier report has them all (each run writes its report complete); older ones may
  // be from before a --force run, whose same MessageIds they would wrongly settle.
  const newest = claim.previous?.reports.at(-1);
  const deliveries = claim.journal
    ? await recordedDeliveries(newest === undefined ? [] : [newest])
    : undefined;
  let run: RunResult;
  try {
    run = await runCampaign(
      {
        entries: readSpool(claim.paths.spool),
        reportPath,
        journalPath: claim.paths.journal,
        contentHash: identity.contentHash,
        previous: claim.journal,
        resent,
        delivered: deliveries ? (id) => deliveries.get(id) !== undefined : undefined,
        overwriteReport: request.force || request.resume,
        normalizedColumn: normalizes(request),
        retryUnknown: request.retryUnknown,
        poster: options.poster,
        batchSize: settings.batchSize,
        concurrency: settings.concurrency,
        retries: settings.retries,
        outageGraceMs: settings.outageGraceMs,
        rate: settings.rate,
        stopSignal: options.stopSignal,
        abortSignal: options.abortSignal,
        windowOpen: window ? windowGate(window, clock) : undefined,
        clock,
        originalMessageId: followUp ? (row) => followUp.rows.get(row) : undefined,
      },
      options.events,
    );
  } finally {
    options.events.off('record', onRecord);
    options.events.off('batch', onBatch);
  }
  if (deliveries) await restoreDeliveries(reportPath, deliveries);
  let windowClosed: WindowClosed | undefined;
  if (run.windowClosed && window) {
    const now = clock.now();
    const next = windowState(window, now);
    windowClosed = {
      sent,
      left: run.notSent,
      window: describeWindow(window),
      timeZone: window.timeZone,
      now,
      opensAt: next.open ? now : next.opensAt,
    };
  }
  const summary = tally.summary(reportPath);
  await claim.finish({
    status: run.stopped || windowClosed ? 'stopped' : run.interrupted ? 'interrupted' : 'finished',
    counts: summary.byOutcome,
    records: summary.total,
    reason:
      run.stopped?.reason ??
      (windowClosed ? `the send window closed: ${windowClosed.window}` : undefined),
  });
  const previous = claim.previous?.reports.at(-1);
  return {
    run,
    summary,
    previousReport: run.resumed && previous && previous !== report ? previous : undefined,
    windowClosed,
    exitCode: run.stopped
      ? ExitCode.gatewayUnusable
      : run.interrupted
        ? ExitCode.interrupted
        : windowClosed
          ? ExitCode.outsideWindow
          : summary.exitCode,
  };
}

/**
 * A run killed while it wrote an earlier report left that report's lock behind; when the campaign
 * is resumed under another report name nothing else would ever take it over. A lock whose owner
 * is alive (a delivery-report fold) is left alone, and so is anything that cannot be reached.
 */
async function clearStaleReportLocks(reports: readonly string[], current: string): Promise<void> {
  for (const report of reports) {
    if (resolvePath(report) === resolvePath(current)) continue;
    if (!(await exists(lockPath(report)))) continue;
    await acquireLock(lockPath(report))
      .then((lock) => lock.release())
      .catch(() => undefined);
  }
}

/**
 * The report path: `--report` with {date}, {time} and {name} filled (so a cron line gets one
 * report per night), or `<input basename>.report.csv` beside the first input; for standard input,
 * `stdin-<campaign ID>.report.csv`, so two different piped campaigns do not share a report.
 */
export function expandReportPath(
  template: string | undefined,
  input: string,
  now: Date,
  campaignId: string,
): string {
  if (template !== undefined) return expandPlaceholders(template, input, now);
  if (input === '-') return `stdin-${campaignId.slice(0, 8)}.report.csv`;
  return join(dirname(input), `${basename(input, extname(input))}.report.csv`);
}

/** `--text` or `--text-file` (its last newline dropped), never both. */
export async function loadTemplate(
  text: string | undefined,
  textFile: string | undefined,
): Promise<string | undefined> {
  if (text !== undefined && textFile !== undefined) {
    throw new UsageError('give --text or --text-file, not both');
  }
  if (textFile === undefined) return text;
  try {
    return (await readFile(textFile, 'utf8')).replace(/\r?\n$/, '');
  } catch {
    throw new UsageError(`cannot read --text-file ${textFile}`);
  }
}

async function hashInputs(files: InputFile[]): Promise<{ sha256: string; bytes: number }[]> {
  const hashes = [];
  for (const file of files) {
    try {
      hashes.push(await hashFile(file.path));
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      const reason =
        e.code === 'ENOENT'
          ? 'the input file does not exist'
          : e.code === 'EISDIR'
            ? 'is a directory, not a file'
            : `cannot read (${e.code ?? e.message})`;
      throw new UsageError(`${file.label}: ${reason}`, 'input', undefined, [
        { file: file.label, reason },
      ]);
    }
  }
  return hashes;
}

/** Whether texts are normalised: as the original campaign did for a follow-up, else as asked. */
function normalizes(request: CampaignRequest): boolean {
  const { followUp } = request;
  return followUp ? followUp.shape.gsmNormalize === true : request.settings.gsmNormalize;
}

/**
 * When sending can start: now, or when a closed send window opens. A relative --validity counts
 * from then, or a run that waits for its window would send messages already expired.
 */
function sendsFrom(window: SendWindow | undefined, now: Date): Date {
  const state = window ? windowState(window, now.getTime()) : undefined;
  return state && !state.open ? new Date(state.opensAt) : now;
}

/**
 * The campaign's identity from how its bytes are read (identitySettings()), unless a campaign of
 * this content is in the state directory under the ID its settings as given make (as sms-send
 * made IDs before it judged settings by the bytes) and none under the new one: that campaign is
 * refused or resumed under its own ID and MessageIds, never sent again.
 */
async function knownIdentity(
  stateDir: string,
  hashes: readonly { sha256: string; bytes: number }[],
  name: string | undefined,
  [read, given]: [CampaignShape, CampaignShape],
): Promise<CampaignIdentity> {
  const identity = campaignIdentity(contentHash(hashes, read), name);
  if (canonicalJson(read) === canonicalJson(given)) return identity;
  const earlier = campaignIdentity(contentHash(hashes, given), name);
  const found = await readManifest(campaignPaths(stateDir, earlier.id).manifest);
  if (found?.contentHash !== earlier.contentHash) return identity;
  const current = await readManifest(campaignPaths(stateDir, identity.id).manifest);
  return current?.contentHash === identity.contentHash ? identity : earlier;
}
