// `sms-send config`: its flags, help and action.
import type { Command } from 'commander';
import { colorOption, gatewayOptions, settingOptions } from '../flags.js';
import { environment, GROUP, setHelp } from '../help.js';
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
  setHelp(config, [environment()]);
}
