// How a run ends when it does not end well, for the command line and the programmatic API alike:
// the typed error carrying its exit code and summary, and the words of each stop. No terminal
// here: the caller words the way to finish.
import { rangesOf } from '../journal/columns.js';
import { countsText } from '../journal/decide.js';
import { groupDigits, plural } from '../shared/count.js';
import {
  GatewayUnusableError,
  InterruptedError,
  OutsideWindowError,
  LockedError,
  StateUnwritableError,
  UsageError,
  type SmsSendError,
} from '../shared/errors.js';
import { describeOpening } from '../shared/window.js';
import { errorJson, type PlanDocument } from './documents.js';
import type { CampaignResult, WindowClosed } from './types.js';

/** A dry run's refusal as the error to throw: its message and code, the plan beside `error`. */
export function refusedPlan(problem: UsageError, document: PlanDocument): UsageError {
  const error = errorJson(problem);
  return new UsageError(problem.message, problem.code, { ...document, error }, problem.problems);
}

/**
 * The typed error a send pass ended with, carrying its summary document: the gateway could not
 * be used (exit 3), the send window closed (exit 5), campaign state could not be written (exit 6),
 * or it was interrupted (exit 130). Undefined
 * for a run that finished (exit 0 or 1). `finish(what, how)` words the message: what happened,
 * and the start of the sentence that says how to finish the campaign.
 */
export function endingError(
  result: CampaignResult,
  document: object,
  finish: (what: string, how: string) => string,
): SmsSendError | undefined {
  const { send: run, windowClosed } = result;
  if (run.stopped?.takenOver) {
    return new LockedError(
      `${run.stopped.reason}: this run sent nothing more, and the run that holds the campaign ` +
        'now finishes it. Nothing this run recorded is sent twice.',
    );
  }
  if (run.stopped?.stateUnwritable) {
    // A disk wants room; a database, to answer again.
    const how = run.stopped.storeDown
      ? 'Once the campaign state database answers, finish the campaign with'
      : 'Once there is room, finish the campaign with';
    return new StateUnwritableError(
      finish(`${run.stopped.reason}: ${stateLeftText(result)}`, how),
      document,
    );
  }
  if (run.stopped) {
    const why = run.stopped.authRefused
      ? 'the gateway refused the credentials'
      : 'the gateway could not be used';
    // Sent again as they are, the credentials would be refused again: they come first.
    const how = run.stopped.authRefused
      ? 'Put the right credentials in place first (`sms-send config` shows where each came from), then finish the campaign with'
      : 'Finish the campaign later with';
    return new GatewayUnusableError(
      finish(`${why}: ${run.stopped.reason}`, how),
      run.stopped.authRefused ? 'credentials-refused' : 'gateway-unusable',
      document,
    );
  }
  if (windowClosed) {
    return new OutsideWindowError(
      finish(windowClosedMessage(windowClosed), 'Finish the campaign in the next window with'),
      document,
    );
  }
  if (run.interrupted) {
    return new InterruptedError(
      finish(interruptedText(result), 'Finish the campaign with'),
      document,
    );
  }
  return undefined;
}

/**
 * `interrupted: 21,558 records not sent and 400 failed; --resume sends these 21,958`: every record
 * the resume will offer, counted as the summary counts them.
 */
function interruptedText(result: CampaignResult): string {
  const { notSent } = result.send;
  const { failed, unknown } = result.summary.byOutcome;
  if (notSent + failed === 0 && unknown > 0) return onlyUnknownLeft(unknown);
  if (failed === 0) return `interrupted: ${plural(notSent, 'record')} not sent`;
  return (
    `interrupted: ${plural(notSent, 'record')} not sent and ${groupDigits(failed)} failed; ` +
    `--resume sends these ${groupDigits(notSent + failed)}`
  );
}

/**
 * A run whose only records left are unknown (abandoned in flight): the resume sends none of them,
 * and the one way that does says how many could then go twice.
 */
function onlyUnknownLeft(unknown: number): string {
  const [are, them] = unknown === 1 ? ['is', 'it'] : ['are', 'them'];
  return (
    `interrupted: no record is left to send; ${groupDigits(unknown)} ${are} unknown (sent, no ` +
    `answer came), which --resume does not send again: it sends nothing and marks the campaign ` +
    `finished. \`--resume --retry-unknown\` sends ${them} again, and any of these ` +
    `${groupDigits(unknown)} the gateway did accept would then go twice`
  );
}

/**
 * How a campaign stands after its state could not be written, as the resume will find it:
 * `3,000 records settled and kept (400 of them only in the report, …), 200 sent without a
 * recorded answer (unknown, not sent again), 6,800 not sent`.
 */
function stateLeftText(result: CampaignResult): string {
  const { send: run } = result;
  const left = run.left;
  if (!left && run.stopped?.storeDown) {
    // The database could not be read back: what this run counted is all the stop knows.
    if (answeredByThisRun(result) === 0) {
      return 'nothing was sent by this run; --resume sends the campaign once the database answers';
    }
    return (
      `this run counted ${countsText(result.summary.byOutcome)} of ` +
      `${plural(result.summary.total, 'record')}, ${groupDigits(run.notSent)} of them not sent; ` +
      'the database could not be read back to count what it kept: --resume counts that, takes ' +
      'any answer it lost from the report, and sends nothing recorded twice'
    );
  }
  if (!left) {
    // Not counted from the spool (it did not read back): the resume reads the input again.
    const settled = result.summary.total - run.notSent;
    return `${plural(settled, 'record')} settled and kept; --resume reads the input again for the rest`;
  }
  const parts = [
    `${plural(left.settled, 'record')} settled and kept` +
      (left.inReport > 0
        ? ` (${groupDigits(left.inReport)} of them only in the report, where --resume takes them from)`
        : ''),
  ];
  if (left.sentNoAnswer > 0) {
    parts.push(
      `${groupDigits(left.sentNoAnswer)} sent without a recorded answer (unknown, not sent again)`,
    );
  }
  if (left.unposted > 0) {
    parts.push(
      `${groupDigits(left.unposted)} recorded, not known to have left (unknown, not sent again)`,
    );
  }
  parts.push(`${groupDigits(left.toSend)} not sent`);
  const lost = left.lost.length;
  const lostText =
    lost > 0
      ? `; ${plural(lost, 'answer')} the gateway gave could not be made durable anywhere (rows ` +
        `${rangesText(rangesOf(left.lost.map((answer) => answer.row)))}), each listed with ` +
        'its MessageId and TransactionId (stateLeft.lost in --json) to keep: --resume takes those ' +
        'the report still holds and reports the rest unknown, never sending them again'
      : '';
  return parts.join(', ') + lostText;
}

/** Records this run itself posted: answered, or unknown (not those earlier runs settled). */
function answeredByThisRun(result: CampaignResult): number {
  const { accepted, rejected, unknown } = result.summary.byOutcome;
  const earlier = result.send.resumed;
  const before = earlier ? earlier.fromJournal + earlier.inFlight + earlier.unposted : 0;
  return accepted + rejected + unknown - before;
}

/** `1-100, 301, 305-310`, the first ten ranges and a count of the rest. */
function rangesText(ranges: readonly number[]): string {
  const parts: string[] = [];
  for (let k = 0; k + 1 < ranges.length; k += 2) {
    parts.push(ranges[k] === ranges[k + 1] ? `${ranges[k]}` : `${ranges[k]}-${ranges[k + 1]}`);
  }
  return parts.length > 10
    ? `${parts.slice(0, 10).join(', ')} and ${parts.length - 10} more ranges`
    : parts.join(', ');
}

/** `the send window closed (09:00-21:00 Europe/Oslo): 120 sent, 880 left; it opens Tue 09:00 …` */
export function windowClosedMessage(closed: WindowClosed): string {
  return (
    `the send window closed (${closed.window}): ${plural(closed.sent, 'message')} sent, ` +
    `${plural(closed.left, 'record')} left; it ${describeOpening(closed.opensAt, closed.now, closed.timeZone)}`
  );
}
