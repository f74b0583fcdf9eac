// `sms-send campaigns` and its subcommands show and prune: flags, help and actions.
import type { Command } from 'commander';
import { colorOption, configOptions, settingOptions, showsInherited } from '../flags.js';
import type { RunState } from '../run-state.js';
import { examples, exitCodes, setHelp } from '../help.js';
import { EXIT_CODE_MEANING } from '../../shared/errors.js';

/** Each subcommand lists the codes it can give: only show names a campaign. */
const exits = (two: string) => ({
  0: 'done',
  2: two,
  6: 'the campaign state database (--state-url) cannot be used',
  70: EXIT_CODE_MEANING[70],
});
const LIST_EXIT_CODES = exits('usage error, or the state directory cannot be read');
const SHOW_EXIT_CODES = exits(
  'usage error, no such campaign (or an ambiguous prefix), or the state directory cannot be read',
);
const PRUNE_EXIT_CODES = exits(
  'usage error (no --older-than, or not a duration), or the state directory cannot be read',
);

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
  setHelp(campaigns, [
    examples([
      ['every campaign of the state directory, newest first', 'sms-send campaigns'],
      [
        'those of another state directory, as JSON',
        'sms-send campaigns --state-dir /srv/sms/state --json',
      ],
    ]),
    exitCodes(LIST_EXIT_CODES),
  ]);
  setHelp(show, [
    examples([
      ['one campaign, by an unambiguous prefix of its ID', 'sms-send campaigns show 3f2a9b1c'],
    ]),
    exitCodes(SHOW_EXIT_CODES),
  ]);
  setHelp(prune, [
    examples([
      [
        'remove the state of campaigns finished more than 90 days ago',
        'sms-send campaigns prune --older-than 90d',
      ],
    ]),
    exitCodes(PRUNE_EXIT_CODES),
  ]);
}
