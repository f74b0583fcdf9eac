// `sms-send campaigns`: lists, shows and prunes the campaigns in the campaign store.
import { campaignShown, pruneAge, pruneFinished } from '../../campaign/campaigns.js';
import {
  campaignShowDocument,
  campaignListDocument,
  pruneDocument,
} from '../../campaign/documents.js';
import { withState } from '../../journal/open-store.js';
import { systemClock } from '../../shared/clock.js';
import { ExitCode } from '../../shared/errors.js';
import { renderCampaign, renderCampaignList, renderPruned } from '../ui/campaigns.js';
import { colorFor } from '../ui/color.js';
import { settingsFor, type GatewayFlags } from '../gateway-settings.js';

export interface CampaignsFlags extends GatewayFlags {
  json?: boolean;
  olderThan?: string;
}

export async function runCampaigns(flags: CampaignsFlags): Promise<ExitCode> {
  const output = await withState(await settingsFor(flags), async ({ store }) => {
    const entries = await store.campaigns();
    return flags.json
      ? JSON.stringify(campaignListDocument(store.where, entries))
      : renderCampaignList(entries, store.where, colorFor('stdout'));
  });
  process.stdout.write(`${output}\n`);
  return ExitCode.ok;
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

export async function runCampaignPrune(flags: CampaignsFlags): Promise<ExitCode> {
  // A missing or malformed age is refused before any setting is read.
  const age = pruneAge(flags.olderThan);
  const output = await withState(await settingsFor(flags), async (state) => {
    const { store } = state;
    const removed = await pruneFinished(state, age, systemClock.now());
    return flags.json
      ? JSON.stringify(pruneDocument(store.where, removed))
      : renderPruned(store.where, removed, colorFor('stdout'));
  });
  process.stdout.write(`${output}\n`);
  return ExitCode.ok;
}
