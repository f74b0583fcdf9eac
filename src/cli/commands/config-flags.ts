// `sms-send config`: its flags, help and action.
import type { Command } from 'commander';
import { colorOption, gatewayOptions, settingOptions } from '../flags.js';
import { environment, examples, exitCodes, GROUP, setHelp } from '../help.js';
import { EXIT_CODE_MEANING } from '../../shared/errors.js';
import type { RunState } from '../run-state.js';

export function defineConfig(program: Command, state: RunState): void {
  const config = program
    .command('config')
    .description('print the resolved settings and where each came from (password masked)');
  gatewayOptions(config);
  settingOptions(config, { groups: ['message', 'cost', 'sending', 'state'] })
    .optionsGroup(GROUP.output)
    .option('--json', 'print them as one JSON document')
    .option('--profiles', "list the config file's profiles and what each sets");
  colorOption(config).action(async (options: Record<string, unknown>) => {
    const { runConfig } = await import('./config.js');
    state.exitCode = await runConfig(options);
  });
  setHelp(config, [
    examples([
      ['what a send here would use, and from where', 'sms-send config'],
      ['the same with a profile of the config file', 'sms-send config --profile staging'],
      ["the config file's profiles", 'sms-send config --profiles'],
    ]),
    exitCodes({
      0: 'the settings are valid',
      2: 'a setting is not valid (each is named, with where it came from), or the config file cannot be read',
      70: EXIT_CODE_MEANING[70],
    }),
    environment(),
  ]);
}
