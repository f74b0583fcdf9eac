// What `sms-send retry` says before it sends: which records of which campaign, and what it leaves out.
import type { ChalkInstance } from 'chalk';
import type { RetryPlan, RetryReason } from '../../campaign/follow-up/index.js';
import { formatCount, plural } from './format.js';

const REASONS: readonly RetryReason[] = ['failed', 'rejected', 'unknown', 'undelivered'];

/** "follow-up of campaign X: 3 failed, 2 rejected (report …)", and what was left out, and why. */
export function renderFollowUp(plan: RetryPlan, c: ChalkInstance): string {
  const { selection } = plan;
  const chosen = REASONS.filter((r) => selection.chosen[r] > 0).map(
    (r) => `${formatCount(selection.chosen[r])} ${r}`,
  );
  const lines = [
    `${c.bold(`follow-up of campaign ${plan.original.manifest.id}`)}: ` +
      `${chosen.length > 0 ? chosen.join(', ') : 'no record to re-send'} ${c.dim(`(from ${plan.report})`)}`,
  ];
  if (selection.alreadyRetried > 0) {
    lines.push(
      `  ${plural(selection.alreadyRetried, 'record')} already re-sent by ${selection.earlierFollowUps.join(', ')}: ` +
        'not again (retry that campaign for what it could not send)',
    );
  }
  const before = plan.original.manifest.followUp?.of;
  // A follow-up's failed row that was unknown in the campaign it re-sent is an unknown one.
  const where = before === undefined ? '' : ` (here or in campaign ${before})`;
  if (selection.left.unknown > 0) {
    lines.push(
      c.dim(
        `  ${plural(selection.left.unknown, 'unknown record')}${where} left out: the gateway may have them (--include unknown re-sends them)`,
      ),
    );
  }
  if (selection.left.undelivered > 0) {
    lines.push(
      c.dim(
        `  ${plural(selection.left.undelivered, 'undelivered record')} left out (--include undelivered re-sends them)`,
      ),
    );
  }
  return lines.join('\n');
}

/** The risk --include unknown takes, said before anything is sent. */
export function renderUnknownRisk(plan: RetryPlan, c: ChalkInstance): string {
  const unknown = plan.selection.chosen.unknown;
  const before = plan.original.manifest.followUp?.of;
  const where = before === undefined ? '' : ` (here or in campaign ${before})`;
  return c.yellow(
    `warning: ${plural(unknown, 'unknown record')}${where} will be re-sent: the gateway may have ` +
      `${unknown === 1 ? 'it' : 'them'} already, so ${unknown === 1 ? 'it' : 'they'} may arrive twice ` +
      '(a row a delivery report confirmed is accepted, and never re-sent)',
  );
}
