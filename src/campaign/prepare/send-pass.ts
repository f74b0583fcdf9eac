// Step four of a campaign: the send pass. It waits for the send window, marks the campaign
// running, sends the spool with report and journal, and records how the run ended.
import { resolve as resolvePath } from 'node:path';
import { recordedDeliveries, restoreDeliveries } from '../../dlr/carry.js';
import type { Claim } from '../../journal/claim.js';
import type { CampaignIdentity, CampaignShape } from '../../journal/identity.js';
import { MANIFEST_VERSION } from '../../journal/state.js';
import { OUTCOMES, type Outcome } from '../../message/outcome.js';
import type { RunSummary, Tally } from '../../report/summary.js';
import { awaitWindow, windowGate } from '../../send/schedule.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import {
  describeSystemError,
  ExitCode,
  InterruptedError,
  leadingTo,
  unsentStateError,
} from '../../shared/errors.js';
import { describeWindow, windowState, type SendWindow } from '../../shared/window.js';
import type { Plan } from '../../validate/plan.js';
import type { Entry } from '../../validate/entries.js';
import { readSpool, SpoolUnreadableError } from '../../validate/spool.js';
import { unstamp } from './kept-spool.js';
import { runCampaign } from './journaled-send.js';
import type {
  CampaignRequest,
  CampaignResult,
  RunResult,
  SendPassOptions,
  WindowClosed,
} from '../types.js';
import { normalizes } from './validation.js';

/** What the send pass takes over from the prepared campaign. */
export interface SendPassInput {
  claim: Claim;
  identity: CampaignIdentity;
  shape: CampaignShape;
  reportPath: string;
  plan: Plan;
  tally: Tally;
  /** Rows of this campaign its follow-ups re-sent (a resume of the original leaves them). */
  resent?: ReadonlyMap<number, string>;
  hashes: { sha256: string; bytes: number }[];
}

export async function sendPass(
  request: CampaignRequest,
  input: SendPassInput,
  options: SendPassOptions,
): Promise<CampaignResult> {
  const { claim, reportPath, tally } = input;
  const clock = options.clock ?? systemClock;
  const window = request.settings.sendWindow;
  // Waiting happens holding the campaign's lock but before it is marked running: a run stopped
  // while it waits has sent nothing and leaves the campaign as it found it.
  if (window) await waitForWindow(window, request, options, clock);
  // The run's time (its rate, its ETA) is sending time: not the validation before it, not the
  // confirmation prompt (which waits for a person), not the wait for the send window.
  tally.startedAt = Date.now();
  options.events.emit('started', { at: tally.startedAt });
  const report = resolvePath(reportPath);
  // Nothing has gone yet: a manifest that cannot be written refuses the run.
  await claim.start(manifestOf(request, input, options.target, report)).catch((error: unknown) => {
    throw unsentStateError(error) ?? error;
  });
  for (const note of claim.notes) options.events.emit('note', note);
  const { run, sent } = await sendCounted(request, input, options, clock);
  const windowClosed =
    run.windowClosed && window ? closedWindow(window, clock, sent, run.notSent) : undefined;
  const summary = tally.summary(reportPath);
  const finished = claim.finish({
    status: run.stopped || windowClosed ? 'stopped' : run.interrupted ? 'interrupted' : 'finished',
    counts: summary.byOutcome,
    records: summary.total,
    summary: { byStatusCode: summary.byStatusCode, suppressed: summary.suppressed ?? 0 },
    reason:
      run.stopped?.reason ??
      (windowClosed ? `the send window closed: ${windowClosed.window}` : undefined),
    rehearsal: run.rehearsal === true || input.shape.target === 'simulator',
  });
  // A manifest that cannot be written still says `running`, which the next run reads as
  // interrupted: --resume finishes it all the same, from the journal, sending nothing twice.
  await finished.catch((error: unknown) => {
    if (!unsentStateError(error)) throw error;
    run.stopped ??= {
      reason: `campaign state could not be written: ${describeSystemError(error)}`,
      authRefused: false,
      stateUnwritable: true,
    };
  });
  const previous = claim.previous?.reports.at(-1);
  return {
    run,
    summary,
    previousReport: run.resumed && previous && previous !== report ? previous : undefined,
    windowClosed,
    exitCode: exitCodeOf(run, windowClosed, summary),
  };
}

async function waitForWindow(
  window: SendWindow,
  request: CampaignRequest,
  options: SendPassOptions,
  clock: Clock,
): Promise<void> {
  const open = await awaitWindow(window, {
    clock,
    events: options.events,
    noWait: request.noWait === true,
    signal: options.stopSignal,
  });
  if (!open) {
    // The campaign is as it was: the same command waits again.
    throw leadingTo(
      new InterruptedError('interrupted while waiting for the send window: nothing was sent'),
      { say: 'Wait for it again' },
    );
  }
}

/** The manifest of a campaign that starts running: what it is, from what, to where. */
function manifestOf(
  request: CampaignRequest,
  input: SendPassInput,
  target: string,
  report: string,
): Parameters<Claim['start']>[0] {
  const { identity, plan, shape, hashes } = input;
  const { settings, followUp } = request;
  const startedAt = new Date().toISOString();
  return {
    v: MANIFEST_VERSION,
    id: identity.id,
    named: identity.named,
    contentHash: identity.contentHash,
    inputs: request.files.map((f, i) => ({
      path: f.label === '-' ? '-' : resolvePath(f.path),
      ...hashes[i]!,
    })),
    target,
    report,
    startedAt,
    updatedAt: startedAt,
    status: 'running',
    records: plan.records,
    // A resumed run starts from what the earlier runs settled: a list of campaigns, which reads
    // manifests only, shows no less for a run killed before it could write its own summary.
    counts:
      request.resume && input.claim.previous
        ? { ...input.claim.previous.counts }
        : (Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>),
    shape,
    // The built-in simulator's runs are rehearsals from the start; another simulator's are
    // known by its answers, when the run ends.
    ...(shape.target === 'simulator' ? { rehearsal: true as const } : {}),
    ...(settings.suppress.length > 0
      ? { suppress: settings.suppress.map((list) => resolvePath(list.path)) }
      : {}),
    ...(followUp ? { followUp: { ...followUp.of, rows: [...followUp.rows] } } : {}),
    ...(settings.pricePerSegment === undefined
      ? {}
      : {
          pricing: {
            pricePerSegment: settings.pricePerSegment,
            ...(settings.currency === undefined ? {} : { currency: settings.currency }),
          },
        }),
    signedDlr: true,
  };
}

/** The run itself, with every row tallied and the batches that may have gone out counted. */
async function sendCounted(
  request: CampaignRequest,
  input: SendPassInput,
  options: SendPassOptions,
  clock: Clock,
): Promise<{ run: RunResult; sent: number }> {
  const { claim, identity, reportPath, tally } = input;
  const { settings, followUp } = request;
  const window = settings.sendWindow;
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
  const spool = checkedSpool(claim.paths.spool, input.plan.records);
  let run: RunResult;
  try {
    run = await runCampaign(
      {
        entries: spool.read(),
        reread: (keep) => spool.read(keep),
        reportPath,
        journalPath: claim.paths.journal,
        contentHash: identity.contentHash,
        previous: claim.journal,
        resent: input.resent,
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
  // A spool that did not read back as written is not kept for the next run: it validates again.
  if (spool.unreadable) await unstamp(claim.paths).catch(() => undefined);
  if (deliveries) await restoreDeliveries(reportPath, deliveries);
  return { run, sent };
}

/** The spool read back, each line checked and counted; whether a reading found it unreadable. */
function checkedSpool(path: string, lines: number) {
  const spool = {
    unreadable: false,
    async *read(keep?: (row: number) => boolean): AsyncGenerator<Entry[]> {
      try {
        yield* readSpool(path, keep, lines);
      } catch (error) {
        if (error instanceof SpoolUnreadableError) spool.unreadable = true;
        throw error;
      }
    },
  };
  return spool;
}

/** How a run the send window stopped stands: what it sent, what is left, when it opens again. */
function closedWindow(window: SendWindow, clock: Clock, sent: number, left: number): WindowClosed {
  const now = clock.now();
  const next = windowState(window, now);
  return {
    sent,
    left,
    window: describeWindow(window),
    timeZone: window.timeZone,
    now,
    opensAt: next.open ? now : next.opensAt,
  };
}

function exitCodeOf(
  run: RunResult,
  windowClosed: WindowClosed | undefined,
  summary: RunSummary,
): ExitCode {
  if (run.stopped) {
    return run.stopped.stateUnwritable ? ExitCode.stateUnwritable : ExitCode.gatewayUnusable;
  }
  if (run.interrupted) return ExitCode.interrupted;
  if (windowClosed) return ExitCode.outsideWindow;
  return summary.exitCode;
}
