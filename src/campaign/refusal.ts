// Why a plan refuses a run (exit 2, nothing sent), worded once: the send command, its dry run and
// the programmatic API throw the same UsageError, with the input's problems listed for machines.
import { formatMoney, groupDigits, plural } from '../shared/count.js';
import { UsageError } from '../shared/errors.js';
import type { Plan } from '../validate/plan.js';
import { planProblems } from './documents.js';
import type { PlannedCampaign } from './types.js';

/** The plan's refusal (exit 2), or undefined when the run may go on. `inputs` as the user named them. */
export function refusalError(
  campaign: PlannedCampaign,
  inputs: readonly string[],
): UsageError | undefined {
  if (campaign.refusal === 'invalid-input') {
    const problems = planProblems(campaign.plan);
    // A follow-up has no --skip-invalid to offer: its records are the original's.
    const hint = !campaign.followUp;
    return new UsageError(
      invalidMessage(campaign.plan, hint),
      'invalid-input',
      undefined,
      problems,
    );
  }
  if (campaign.refusal === 'empty-input') {
    return new UsageError(`${inputs.join(', ')}: no records to send`, 'empty-input');
  }
  if (campaign.refusal === 'over-max-cost') {
    return new UsageError(overMaxCostMessage(campaign.plan), 'over-max-cost');
  }
  return undefined;
}

/** The exit-2 explanation: file problems first, then records with file:line, then counts. */
export function invalidMessage(plan: Plan, skipInvalidHint: boolean): string {
  const lines: string[] = [];
  for (const problem of plan.fileProblems) lines.push(`${problem.file}: ${problem.message}`);
  if (plan.invalid > 0) {
    lines.push(`${plural(plan.invalid, 'record')} of ${groupDigits(plan.records)} cannot be sent:`);
    // Every malformed row and every other invalid record of the pass, the first of each listed.
    const groups = [
      { listed: plan.malformedRows, total: plan.malformed, more: 'more malformed row' },
      { listed: plan.invalidRecords, total: plan.invalid - plan.malformed, more: 'more record' },
    ];
    const say = (records: readonly (typeof plan.invalidRecords)[number][]) => {
      for (const record of records) {
        for (const problem of record.problems) {
          lines.push(`  ${record.file}:${record.line}: ${problem.field}: ${problem.reason}`);
        }
      }
    };
    if (groups.every(({ listed, total }) => total === listed.length)) {
      // All of them listed: in the order of the input, as an editor goes through it.
      say([...plan.malformedRows, ...plan.invalidRecords].sort((a, b) => a.row - b.row));
    } else {
      for (const { listed, total, more } of groups) {
        say(listed);
        if (total > listed.length) lines.push(`  … and ${plural(total - listed.length, more)}`);
      }
    }
    const byField = Object.entries(plan.invalidByField).sort((a, b) => b[1] - a[1]);
    lines.push(`by field: ${byField.map(([field, n]) => `${field} ${groupDigits(n)}`).join(', ')}`);
  }
  lines.push(
    'Nothing was sent.' +
      (skipInvalidHint && plan.fileProblems.length === 0
        ? ' Fix the input, or pass --skip-invalid to send the valid records and report the rest as invalid.'
        : ''),
  );
  return lines.join('\n');
}

/** The exit-2 explanation of --max-cost: the estimate, the limit, and what would bring it down. */
export function overMaxCostMessage(plan: Plan): string {
  const cost = plan.cost!;
  const money = (amount: number) => formatMoney(amount, cost.currency);
  const lines = [
    `the estimated cost ${money(cost.total)} (${plural(plan.segments, 'segment')} of ${plural(plan.valid, 'message')}) ` +
      `is more than --max-cost ${money(cost.maxCost!)}. Nothing was sent.`,
  ];
  if (plan.normalizable?.costSaved) {
    lines.push(
      `--gsm-normalize would send ${plural(plan.normalizable.messages, 'record')} as GSM-7 and save ${money(plan.normalizable.costSaved)}; --dry-run shows the characters that forced UCS-2.`,
    );
  }
  return lines.join('\n');
}
