// Settings of the commands that talk to a gateway: the flags the user passed as a config layer, --password-stdin.
import { flagAttribute, SETTING_KEYS, SETTINGS } from '../config/table.js';
import { resolveSettings } from '../config/resolve.js';
import type { Settings } from '../config/settings.js';
import { UsageError } from '../shared/errors.js';
import { colorFor } from './ui/color.js';

/** Flags of the commands that resolve settings; the settings' own flags come from the table. */
export interface GatewayFlags {
  simulate?: boolean;
  allowInsecure?: boolean;
  config?: string;
  profile?: string;
  passwordStdin?: boolean;
  [flag: string]: unknown;
}

/** Only flags the user passed become a layer, so the config file can set everything else. */
export function flagLayer(flags: GatewayFlags): Record<string, unknown> {
  const layer: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const { flag, fromFlag } = SETTINGS[key] as {
      flag?: string;
      fromFlag?: (t: string) => unknown;
    };
    const value = flag === undefined ? undefined : flags[flagAttribute(flag)];
    if (value === undefined) continue;
    layer[key] = fromFlag && typeof value === 'string' ? fromFlag(value) : value;
  }
  return layer;
}

export async function readPasswordFromStdin(inputs: string[]): Promise<string> {
  if (inputs.includes('-')) {
    throw new UsageError('--password-stdin and input from stdin (-) cannot share standard input');
  }
  if (process.stdin.isTTY) throw new UsageError('--password-stdin needs the password piped in');
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  const password = text.replace(/\r?\n$/, '');
  if (!password) throw new UsageError('--password-stdin: standard input was empty');
  return password;
}

/** The config pipeline for a gateway command, with the flags the user passed. */
export async function settingsFor(
  flags: GatewayFlags,
  inputs: readonly string[] = [],
): Promise<Settings> {
  const settings = await resolveSettings({
    cwd: process.cwd(),
    env: process.env,
    flags: flagLayer(flags),
    configPath: flags.config,
    profile: flags.profile,
    stdinPassword: flags.passwordStdin ? await readPasswordFromStdin([...inputs]) : undefined,
  });
  const err = colorFor('stderr');
  for (const warning of settings.warnings)
    process.stderr.write(err.yellow(`warning: ${warning}\n`));
  return settings;
}
