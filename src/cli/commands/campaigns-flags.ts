// `sms-send campaigns` and its subcommands list, show and prune: flags, help and actions.
import { Option, type Command } from 'commander';
import { colorOption, configOptions, settingOptions, showsInherited } from '../flags.js';
import type { RunState } from '../run-state.js';
import { examples, exitCodes, GROUP, setHelp } from '../help.js';
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
const PRUNE_EXIT_CODES = {
  ...exits(
    'usage error (no --older-than, or not a duration), not confirmed at the question, or the state directory cannot be read',
  ),
  130: 'interrupted at the question: nothing was removed',
};

export function defineCampaigns(program: Command, state: RunState): void {
  const campaigns = program
    .command('campaigns')
    .description('list the campaigns in the state directory, newest first');
  // Where the state is, and nothing of a send's (--lease is a sending run's hold on a campaign).
  settingOptions(campaigns, { keys: ['stateDir', 'stateUrl'] });
  configOptions(campaigns.optionsGroup(GROUP.report));
  colorOption(
    campaigns.optionsGroup(GROUP.output).option('--json', 'print them as one JSON document'),
  );
  // Before the subcommands are made, so that each takes it (and its heading) too.
  campaigns.addHelpOption(new Option('-h, --help', 'show this help').helpGroup(GROUP.output));
  const list = async (options: Record<string, unknown>) => {
    const { runCampaigns } = await import('./campaigns.js');
    state.exitCode = await runCampaigns(options);
  };
  campaigns.action(list);
  // `campaigns list`, as gh and twilio name a list: the same list, with the same flags.
  const listed = campaigns
    .command('list')
    .description('list the campaigns, newest first (the same as campaigns)')
    .action((_options: Record<string, unknown>, command: Command) =>
      list(command.optsWithGlobals()),
    );
  const show = campaigns
    .command('show')
    .description("show one campaign's state: status, counts, inputs, reports")
    .argument('<id>', 'campaign ID (or an unambiguous prefix)')
    .optionsGroup(GROUP.output)
    .option('--json', 'print it as one JSON document')
    .action(async (id: string, _options: Record<string, unknown>, command: Command) => {
      const { runCampaignShow } = await import('./campaigns.js');
      state.exitCode = await runCampaignShow(id, command.optsWithGlobals());
    });
  const prune = campaigns
    .command('prune')
    .description('remove the state of finished campaigns (their reports are kept)')
    .optionsGroup('Prune:')
    .option('--older-than <duration>', 'finished longer ago than this, e.g. 90d')
    .option('--dry-run', 'list what would be removed; remove nothing')
    .option('-y, --yes', 'do not ask before removing (asked when stdin is a terminal)')
    .optionsGroup(GROUP.output)
    .option('--json', 'print what was removed (or would be, with --dry-run) as one JSON document')
    .action(async (_options: Record<string, unknown>, command: Command) => {
      const { runCampaignPrune } = await import('./campaigns.js');
      state.exitCode = await runCampaignPrune(command.optsWithGlobals());
    });
  for (const sub of [listed, show, prune]) showsInherited(sub);
  describe({ campaigns, listed, show, prune });
}

/** The sections after each one's flags: examples and exit codes. */
function describe(commands: Record<'campaigns' | 'listed' | 'show' | 'prune', Command>): void {
  const { campaigns, listed, show, prune } = commands;
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
  setHelp(listed, [
    examples([['every campaign, as gh would list them', 'sms-send campaigns list']]),
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
      [
        'what that would remove; nothing is removed',
        'sms-send campaigns prune --older-than 90d --dry-run',
      ],
    ]),
    exitCodes(PRUNE_EXIT_CODES),
  ]);
}
