// `sms-send campaigns`: lists, shows and prunes the campaigns in the campaign store.
import { campaignShown, pruneAge, pruneFinished } from '../../campaign/campaigns.js';
import {
  campaignShowDocument,
  campaignListDocument,
  pruneDocument,
} from '../../campaign/documents.js';
import { withState } from '../../journal/open-store.js';
import { systemClock } from '../../shared/clock.js';
import { ExitCode, InterruptedError, UsageError } from '../../shared/errors.js';
import {
  renderCampaign,
  renderCampaignList,
  renderPruned,
  renderPruneQuestion,
} from '../ui/campaigns.js';
import { confirmOnTerminal } from '../ui/confirm.js';
import { colorFor } from '../ui/color.js';
import { settingsFor, type GatewayFlags } from '../gateway-settings.js';

export interface CampaignsFlags extends GatewayFlags {
  json?: boolean;
  olderThan?: string;
  dryRun?: boolean;
  yes?: boolean;
}

export async function runCampaigns(flags: CampaignsFlags): Promise<ExitCode> {
  const output = await withState(await settingsFor(flags), async ({ store }) => {
    const entries = await store.campaigns();
    return flags.json
      ? JSON.stringify(campaignListDocument(store.where, entries))
      : renderCampaignList(entries, store.where, colorFor('stdout'), terminalWidth());
  });
  process.stdout.write(`${output}\n`);
  return ExitCode.ok;
}

/** The terminal's columns when stdout is one (80 when it does not say); else none: whole cells. */
function terminalWidth(): number | undefined {
  return process.stdout.isTTY ? process.stdout.columns || 80 : undefined;
}

export async function runCampaignShow(id: string, flags: CampaignsFlags): Promise<ExitCode> {
  const entry = await withState(await settingsFor(flags), (state) => campaignShown(state, id));
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(campaignShowDocument(entry))}\n`
      : `${renderCampaign(entry, colorFor('stdout'))}\n`,
  );
  return ExitCode.ok;
}

/**
 * `campaigns prune`: with --dry-run, what it would remove; from a terminal, what it will remove,
 * asked first (unless --yes). Without a terminal on stdin (cron) it removes without asking, as it
 * always has: a cron line has nobody to answer, and an old cron line must not start failing.
 */
export async function runCampaignPrune(flags: CampaignsFlags): Promise<ExitCode> {
  // A missing or malformed age is refused before any setting is read.
  const age = pruneAge(flags.olderThan);
  const dryRun = flags.dryRun === true;
  const output = await withState(await settingsFor(flags), async (state) => {
    const now = systemClock.now();
    const ask = !dryRun && !flags.yes && process.stdin.isTTY;
    let only: string[] | undefined;
    if (dryRun || ask) only = await pruneFinished(state, age, now, { dryRun: true });
    if (ask && only && only.length > 0) await confirmPrune(only);
    // Only what was shown and agreed to: a campaign that finished in the meantime waits.
    const removed = dryRun ? (only ?? []) : await pruneFinished(state, age, now, { only });
    return flags.json
      ? JSON.stringify(pruneDocument(state.store.where, removed, dryRun))
      : renderPruned(state.store.where, removed, colorFor('stdout'), dryRun);
  });
  process.stdout.write(`${output}\n`);
  return ExitCode.ok;
}

/** Asks on the terminal before removing `ids`' state; a no ends the run (exit 2), removing nothing. */
async function confirmPrune(ids: readonly string[]): Promise<void> {
  const answer = await confirmOnTerminal(renderPruneQuestion(ids));
  if (answer === 'interrupted') {
    throw new InterruptedError('interrupted at the confirmation: nothing was removed');
  }
  if (answer === 'no') throw new UsageError('not confirmed: nothing was removed', 'not-confirmed');
}
