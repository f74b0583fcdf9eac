// `sms-send retry`: its flags, help and action; the run is retry.ts's.
import type { Command } from 'commander';
import {
  gatewayOptions,
  reportOption,
  runOutputOptions,
  sendingOptions,
  settingOptions,
} from '../flags.js';
import { environment, examples, exitCodes, setHelp } from '../help.js';
import type { RunState } from '../run-state.js';

export function defineRetry(program: Command, state: RunState): Command {
  const retry = program
    .command('retry')
    .description(
      're-send the records of a campaign that failed or were rejected, as a new campaign',
    )
    .argument('<campaign>', "campaign ID or prefix (sms-send campaigns), or the campaign's report")
    .optionsGroup('Records:')
    .option(
      '--include <what>',
      'also re-send "unknown" or "undelivered" records (comma-separated, repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    );
  sendingOptions(retry, {
    dryRun: 'choose the records and print the plan; send nothing',
    force: 'send this follow-up again although it was sent; overwrite its report',
    resume:
      'finish an interrupted or stopped follow-up from its journal; nothing settled is resent',
  });
  settingOptions(retry, { send: true, groups: ['sending'] });
  reportOption(
    retry,
    'default beside the original report, <its name>.retry-<ID, 8 characters>.report.<its extension>',
  );
  runOutputOptions(settingOptions(retry, { groups: ['state'] }));
  gatewayOptions(retry, { send: true }).action(
    async (campaign: string, options: Record<string, unknown>) => {
      const { runRetry } = await import('./retry.js');
      state.exitCode = await runRetry(campaign, options, state.invocation);
    },
  );
  setHelp(retry, [
    examples([
      ['re-send what failed or was rejected', 'sms-send retry 3f2a9b1c'],
      [
        'also the unknown ones (the gateway may have them) and the undelivered ones',
        'sms-send retry campaign.report.csv --include unknown,undelivered',
      ],
    ]),
    exitCodes(),
    environment(),
  ]);

  return retry;
}
