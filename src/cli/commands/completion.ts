// `sms-send completion`: prints the script for a shell, from the program's commands and the settings table.
import type { Command, Option } from 'commander';
import { SETTING_KEYS, SETTINGS } from '../../config/table.js';
import { INPUT_FORMATS } from '../../input/types.js';
import { ExitCode, UsageError } from '../../shared/errors.js';
import { withState } from '../../journal/open-store.js';
import { completionScript, SHELLS, type Shell } from '../completion.js';
import { settingsFor, type GatewayFlags } from '../gateway-settings.js';

/** Values of flags that are not settings: what `--input-format` and `retry --include` take. */
const FLAG_CHOICES: Readonly<Record<string, readonly string[]>> = {
  '--input-format': INPUT_FORMATS,
  '--include': ['unknown', 'undelivered'],
};

/** The words a flag's value may be: the settings table's choices, or the list above. */
export function flagChoices(option: Option): readonly string[] | undefined {
  const key = SETTING_KEYS.find((k) => SETTINGS[k].flag?.split(' ')[0] === option.long);
  const choices = key === undefined ? undefined : SETTINGS[key].choices;
  return choices ? choices() : option.long ? FLAG_CHOICES[option.long] : undefined;
}

export function runCompletion(shell: string, program: Command): ExitCode {
  if (!SHELLS.includes(shell as Shell)) {
    throw new UsageError(`completion: "${shell}" is not one of ${SHELLS.join(', ')}`);
  }
  process.stdout.write(completionScript(shell as Shell, program, flagChoices));
  return ExitCode.ok;
}

/**
 * The campaign IDs of the state directory, newest first, one a line: what a completion script
 * offers where a campaign goes. Quiet when there are none, or no state directory yet.
 */
export async function runListCampaigns(flags: GatewayFlags): Promise<ExitCode> {
  const entries = await withState(await settingsFor(flags), ({ store }) => store.campaigns()).catch(
    () => [],
  );
  process.stdout.write(entries.map((entry) => `${entry.manifest.id}\n`).join(''));
  return ExitCode.ok;
}
