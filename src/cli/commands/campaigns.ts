// `sms-send campaigns`: lists, shows and prunes the campaigns in the state directory.
import { campaignShown, campaignsIn, pruneAge, pruneFinished } from '../../campaign/campaigns.js';
import { ExitCode } from '../../shared/errors.js';
import { campaignDocument } from '../../campaign/documents.js';
import { renderCampaign, renderCampaignList } from '../ui/campaigns.js';
import { colorFor } from '../ui/color.js';
import { settingsFor, type GatewayFlags } from '../gateway-settings.js';

export interface CampaignsFlags extends GatewayFlags {
  json?: boolean;
  olderThan?: string;
}

export async function runCampaigns(flags: CampaignsFlags): Promise<ExitCode> {
  const { stateDir } = await settingsFor(flags);
  const entries = await campaignsIn(stateDir);
  process.stdout.write(
    flags.json
      ? `${JSON.stringify({ stateDir, campaigns: entries.map(campaignDocument) })}\n`
      : `${renderCampaignList(entries, stateDir, colorFor('stdout'))}\n`,
  );
  return ExitCode.ok;
}

export async function runCampaignShow(id: string, flags: CampaignsFlags): Promise<ExitCode> {
  const { stateDir } = await settingsFor(flags);
  const entry = await campaignShown(stateDir, id);
  process.stdout.write(
    flags.json
      ? `${JSON.stringify({ ...campaignDocument(entry), setAside: entry.setAside })}\n`
      : `${renderCampaign(entry, colorFor('stdout'))}\n`,
  );
  return ExitCode.ok;
}

export async function runCampaignPrune(flags: CampaignsFlags): Promise<ExitCode> {
  // A missing or malformed age is refused before any setting is read.
  const age = pruneAge(flags.olderThan);
  const { stateDir } = await settingsFor(flags);
  const removed = await pruneFinished(stateDir, age, new Date());
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ stateDir, removed })}\n`);
  } else {
    const c = colorFor('stdout');
    process.stdout.write(
      removed.length === 0
        ? `nothing to prune in ${stateDir}\n`
        : `removed the state of ${removed.length} finished campaign${removed.length === 1 ? '' : 's'}: ${removed.join(', ')}\n` +
            c.dim(
              'Their reports are kept; a re-run of their content is refused only while such a report exists.\n',
            ),
    );
  }
  return ExitCode.ok;
}
