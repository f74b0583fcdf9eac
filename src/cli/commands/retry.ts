// `sms-send retry CAMPAIGN`: wiring only. Chooses the records, then prepares and sends them as any campaign.
import { ExitCode, UsageError } from '../../shared/errors.js';
import type { Settings } from '../../config/settings.js';
import { prepareCampaign } from '../../campaign/prepare/index.js';
import type { CampaignRequest, FollowUp } from '../../campaign/types.js';
import {
  followUpCampaign,
  INCLUDES,
  planFollowUp,
  type Include,
  type RetryPlan,
} from '../../campaign/follow-up/index.js';
import { gatewayTarget } from '../../campaign/target.js';
import { SendEmitter } from '../../send/events.js';
import { settingsFor } from '../gateway-settings.js';
import type { Invocation } from '../invocation.js';
import { colorFor } from '../ui/color.js';
import { showValidationProgress } from '../ui/progress.js';
import { followUpJson, renderFollowUp, renderUnknownRisk } from '../ui/retry.js';
import { sendPrepared, type SendFlags } from './send.js';

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
  if (flags.force && flags.resume) {
    throw new UsageError('--force and --resume contradict each other');
  }
  const include = parseIncludes(flags.include);
  const settings = await settingsFor(flags);
  const target = flags.dryRun ? undefined : gatewayTarget(settings, flags);
  const plan = await planFollowUp({
    campaign,
    include,
    stateDir: settings.stateDir,
    simulate: flags.simulate === true,
    resume: flags.resume === true,
    program: invocation.program,
  });
  const err = colorFor('stderr');
  const talk = flags.quiet !== true && flags.json !== true;
  if (talk) process.stderr.write(`${renderFollowUp(plan, err)}\n`);
  const extra = followUpJson(plan);
  if (!plan.followUp) {
    // Nothing failed: a cron line that retries every night has nothing to do, which is no error.
    process.stdout.write(
      flags.json ? `${JSON.stringify(extra)}\n` : talk ? 'nothing to retry\n' : '',
    );
    return ExitCode.ok;
  }
  if (plan.selection.chosen.unknown > 0 && flags.json !== true) {
    process.stderr.write(`${renderUnknownRisk(plan.selection.chosen.unknown, err)}\n`);
  }
  const events = new SendEmitter();
  const validation = showValidationProgress({
    intervalSeconds: flags.progressInterval ?? 10,
    quiet: !talk,
  });
  events.on('validated', validation.read);
  const prepared = await prepareCampaign({
    ...retryRequest({ ...plan, followUp: plan.followUp }, settings, flags, (records) =>
      events.emit('validated', records),
    ),
    program: invocation.program,
  }).finally(() => validation.stop());
  try {
    const inputs = plan.followUp.inputs.map((input) => input.path);
    return await sendPrepared(prepared, {
      settings,
      flags,
      inputs,
      target,
      events,
      extra,
      invocation,
    });
  } finally {
    await prepared.close();
  }
}

/**
 * The follow-up campaign as the command line asks for it. The same retry left unfinished is
 * finished, as --resume would: nothing it settled goes again.
 */
export function retryRequest(
  plan: RetryPlan & { followUp: FollowUp },
  settings: Settings,
  flags: RetryFlags,
  onValidated?: (records: number) => void,
): CampaignRequest {
  return followUpCampaign(plan.followUp, plan.report, {
    settings,
    simulate: flags.simulate === true,
    report: flags.report,
    force: flags.force === true,
    resume: flags.resume === true || plan.resume === true,
    dryRun: flags.dryRun === true,
    noWait: flags.wait === false,
    now: new Date(),
    onValidated,
  });
}
