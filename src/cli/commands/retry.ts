// `sms-send retry CAMPAIGN`: wiring only. Chooses the records, then sends them as any campaign: a
// follow-up's run, on the campaign's one path.
import { ExitCode, UsageError } from '../../shared/errors.js';
import {
  followUpRun,
  INCLUDES,
  planFollowUp,
  type Include,
} from '../../campaign/follow-up/index.js';
import { gatewayAccess } from '../../campaign/target.js';
import type { Settings } from '../../config/settings.js';
import { closeState, openState, type CampaignState } from '../../journal/open-store.js';
import { settingsFor } from '../gateway-settings.js';
import { programOf, type Invocation } from '../invocation.js';
import { colorFor } from '../ui/color.js';
import { followUpDocument } from '../../campaign/documents.js';
import { renderFollowUp, renderUnknownRisk } from '../ui/retry.js';
import { RunView } from '../ui/run-view.js';
import { sendFromCommand, typedCommand, type SendFlags } from './send.js';

export interface RetryFlags extends SendFlags {
  /** `--include unknown,undelivered`, repeatable. */
  include?: string[];
}

/** `--include` values, each possibly a comma-separated list. */
export function parseIncludes(values: readonly string[] = []): Include[] {
  const include = new Set<Include>();
  for (const word of values.flatMap((v) => v.split(','))) {
    const what = word.trim();
    if (!(INCLUDES as readonly string[]).includes(what)) {
      throw new UsageError(
        `--include ${what}: re-send also "unknown" or "undelivered" records (failed and rejected ones always are)`,
      );
    }
    include.add(what as Include);
  }
  return [...include];
}

export async function runRetry(
  campaign: string,
  flags: RetryFlags,
  invocation: Invocation,
): Promise<ExitCode> {
  const include = parseIncludes(flags.include);
  const settings = await settingsFor(flags);
  // Where to send is known before the campaign's state is looked at.
  if (!flags.dryRun) gatewayAccess(settings, flags);
  const state = openState(settings);
  try {
    return await retryFrom(state, campaign, include, { settings, flags, invocation });
  } finally {
    await closeState(state);
  }
}

async function retryFrom(
  state: CampaignState,
  campaign: string,
  include: Include[],
  {
    settings,
    flags,
    invocation,
  }: { settings: Settings; flags: RetryFlags; invocation: Invocation },
): Promise<ExitCode> {
  const plan = await planFollowUp({
    campaign,
    include,
    store: state.store,
    simulate: flags.simulate === true,
    resume: flags.resume === true,
    program: programOf(invocation),
  });
  const err = colorFor('stderr');
  const talk = flags.quiet !== true && flags.json !== true;
  if (talk) process.stderr.write(`${renderFollowUp(plan, err)}\n`);
  const extra = followUpDocument(plan);
  if (!plan.followUp) {
    // Nothing failed: a cron line that retries every night has nothing to do, which is no error.
    process.stdout.write(
      flags.json ? `${JSON.stringify(extra)}\n` : talk ? 'nothing to retry\n' : '',
    );
    return ExitCode.ok;
  }
  if (plan.selection.chosen.unknown > 0 && flags.json !== true) {
    process.stderr.write(`${renderUnknownRisk(plan, err)}\n`);
  }
  const view = new RunView(flags);
  try {
    const run = followUpRun(plan.followUp, plan.report, {
      settings,
      state,
      // The follow-up's own choices: where its report goes and how it is sent, never how its
      // records are read (the original's way). The same retry left unfinished is finished.
      choices: {
        simulate: flags.simulate,
        allowInsecure: flags.allowInsecure,
        report: flags.report,
        force: flags.force,
        resume: flags.resume === true || plan.resume === true,
        dryRun: flags.dryRun,
        wait: flags.wait,
        html: flags.html,
      },
      program: programOf(invocation),
      commandLine: typedCommand(settings, invocation),
      io: view.io,
    });
    return await sendFromCommand(run, { flags, invocation, view, extra });
  } finally {
    view.dispose();
  }
}
