// Step nine of a campaign: how the run ended goes into its manifest (finished, interrupted or
// stopped, with the counts a list of campaigns shows), and the run's record is kept: its timeline
// in the campaign's state, and with `html` its page beside the report.
import { resolve as resolvePath } from 'node:path';
import { campaignPage } from '../../report/html/campaign-page.js';
import { writePage } from '../../report/html/page-file.js';
import type { RunSummary } from '../../report/summary.js';
import type { Clock } from '../../shared/clock.js';
import {
  describeSystemError,
  ExitCode,
  StateStoreError,
  StateUnwritableError,
  unsentStateError,
} from '../../shared/errors.js';
import { HoldLostError } from '../../journal/store.js';
import type { RunHold } from './hold.js';
import { describeWindow, windowState, type SendWindow } from '../../shared/window.js';
import type { CampaignRun } from '../run.js';
import type { CampaignResult, SendResult, WindowClosed } from '../types.js';
import type { Validated } from './planned.js';
import type { RunKeeper } from './run-record.js';

/** Records how the run ended in the manifest, and answers with the campaign's result. */
export async function finish(
  run: CampaignRun,
  campaign: Validated,
  hold: RunHold,
  { result, sent }: { result: SendResult; sent: number },
): Promise<CampaignResult> {
  const window = run.settings.sendWindow;
  const { clock } = run.io;
  const windowClosed =
    result.windowClosed && window ? closedWindow(window, clock, sent, result.notSent) : undefined;
  const summary = campaign.tally.summary(campaign.reportPath);
  const report = resolvePath(campaign.reportPath);
  const finished = hold.claim.finish(
    {
      status:
        result.stopped || windowClosed
          ? 'stopped'
          : result.interrupted
            ? 'interrupted'
            : 'finished',
      counts: summary.byOutcome,
      records: summary.total,
      summary: {
        byStatusCode: summary.byStatusCode,
        suppressed: summary.suppressed ?? 0,
        notToSend: summary.notToSend ?? 0,
      },
      reason:
        result.stopped?.reason ??
        (windowClosed ? `the send window closed: ${windowClosed.window}` : undefined),
      rehearsal: result.rehearsal === true || campaign.shape.target === 'simulator',
      at: new Date(clock.now()).toISOString(),
    },
    report,
  );
  // A manifest that cannot be written still says `running`, which the next run reads as
  // interrupted: --resume finishes it all the same, from the journal, sending nothing twice.
  await finished.catch((error: unknown) => {
    const takenOver = error instanceof HoldLostError;
    if (!takenOver && !(error instanceof StateUnwritableError) && !unsentStateError(error)) {
      throw error;
    }
    const database = error instanceof StateStoreError;
    result.stopped ??= {
      reason:
        error instanceof StateUnwritableError || database
          ? error.message
          : `campaign state could not be written: ${describeSystemError(error)}`,
      authRefused: false,
      stateUnwritable: true,
      ...(takenOver ? { takenOver } : {}),
      ...(database ? { storeDown: true } : {}),
    };
  });
  const previous = hold.found.previous?.reports.at(-1);
  return {
    send: result,
    summary,
    previousReport: result.resumed && previous && previous !== report ? previous : undefined,
    windowClosed,
    exitCode: exitCodeOf(result, windowClosed, summary),
  };
}

/**
 * However the run ended: its timeline into the campaign's state (as it stands at the end), and
 * with `html` the page beside the report. Neither may change what the run ends with (the report
 * is the record), so a failure is a warning.
 */
export async function keepRunRecord(
  run: CampaignRun,
  campaign: Validated,
  keeper: RunKeeper | undefined,
): Promise<void> {
  const { settings } = run;
  const warn = (what: string, error: unknown) =>
    run.io.events.emit('warning', `${what}: ${describeSystemError(error)}`);
  const { cache, store } = run;
  await keeper?.finish();
  const html = run.choices.html;
  if (html === undefined) return;
  try {
    const page = await campaignPage({
      what: campaign.identity.id,
      state: { store, cache },
      program: run.program,
      pricePerSegment: settings.pricePerSegment,
      currency: settings.currency,
    });
    await writePage(html, page.html);
    run.io.events.emit('note', `page written: ${html}`);
  } catch (error) {
    warn(`the page ${html} was not written`, error);
  }
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
  run: SendResult,
  windowClosed: WindowClosed | undefined,
  summary: RunSummary,
): ExitCode {
  if (run.stopped) {
    if (run.stopped.takenOver) return ExitCode.locked;
    return run.stopped.stateUnwritable ? ExitCode.stateUnwritable : ExitCode.gatewayUnusable;
  }
  if (run.interrupted) return ExitCode.interrupted;
  if (windowClosed) return ExitCode.outsideWindow;
  return summary.exitCode;
}
