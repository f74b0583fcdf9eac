// `sms-send campaigns` and its subcommands show and prune: flags, help and actions.
import type { Command } from 'commander';
import { colorOption, configOptions, settingOptions, showsInherited } from '../flags.js';
import type { RunState } from '../run-state.js';

export function defineCampaigns(program: Command, state: RunState): void {
  const campaigns = program
    .command('campaigns')
    .description('list the campaigns in the state directory, newest first');
  configOptions(settingOptions(campaigns, { groups: ['state'] })).option(
    '--json',
    'print them as one JSON document',
  );
  colorOption(campaigns).action(async (options: Record<string, unknown>) => {
    const { runCampaigns } = await import('./campaigns.js');
    state.exitCode = await runCampaigns(options);
  });
  const show = campaigns
    .command('show')
    .description("show one campaign's state: status, counts, inputs, reports")
    .argument('<id>', 'campaign ID (or an unambiguous prefix)')
    .option('--json', 'print it as one JSON document')
    .action(async (id: string, _options: Record<string, unknown>, command: Command) => {
      const { runCampaignShow } = await import('./campaigns.js');
      state.exitCode = await runCampaignShow(id, command.optsWithGlobals());
    });
  const prune = campaigns
    .command('prune')
    .description('remove the state of finished campaigns (their reports are kept)')
    .option('--older-than <duration>', 'finished longer ago than this, e.g. 90d')
    .option('--json', 'print what was removed as one JSON document')
    .action(async (_options: Record<string, unknown>, command: Command) => {
      const { runCampaignPrune } = await import('./campaigns.js');
      state.exitCode = await runCampaignPrune(command.optsWithGlobals());
    });
  showsInherited(show);
  showsInherited(prune);
}
