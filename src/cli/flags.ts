// Flags that more than one command takes, each declared once: the settings table's (flag, help
// and default from its entry), the gateway's, and those of the commands that send a campaign.
import { Help, Option, type Command } from 'commander';
import {
  SETTING_KEYS,
  SETTINGS,
  type SettingGroup,
  type SettingKey,
  type SettingSpec,
} from '../config/table.js';
import { GROUP } from './help.js';
import { keyValue, listOf, nonNegativeInt } from './options.js';

/** Where each group of the settings table shows in help. */
const SETTING_GROUP: Record<SettingGroup, string> = {
  input: GROUP.input,
  gateway: GROUP.gateway,
  message: GROUP.message,
  cost: GROUP.cost,
  sending: GROUP.sending,
  state: GROUP.report,
};

/**
 * The settings table's flags, with their help and defaults, under their group's heading (or
 * `heading`); validation is the schema's job.
 */
export function settingOptions(
  command: Command,
  options: {
    send?: boolean;
    groups?: readonly SettingGroup[];
    keys?: readonly SettingKey[];
    heading?: string;
  },
): Command {
  for (const key of SETTING_KEYS) {
    const spec: SettingSpec = SETTINGS[key];
    if (spec.flag === undefined || (spec.sendOnly && !options.send)) continue;
    if (options.groups && !options.groups.includes(spec.group)) continue;
    if (options.keys && !options.keys.includes(key)) continue;
    const option = new Option(spec.flag, settingHelp(spec)).helpGroup(
      options.heading ?? SETTING_GROUP[spec.group],
    );
    if (spec.repeatable === 'list') option.argParser(listOf);
    else if (spec.repeatable) option.argParser(keyValue);
    command.addOption(option);
  }
  return command;
}

/** A setting's help line: its help and its built-in default. */
export function settingHelp(spec: SettingSpec): string {
  if (spec.default === undefined) return spec.help;
  const fallback = typeof spec.default === 'string' ? spec.default : JSON.stringify(spec.default);
  return `${spec.help} (default ${fallback})`;
}

/** `--no-color`, which every command that prints takes. */
export function colorOption(command: Command): Command {
  return command.option('--no-color', 'no colours in output');
}

/** Where the settings come from: the config file and its profile. */
export function configOptions(command: Command): Command {
  return command
    .option('--config <path>', 'config file (default: searched from the current folder)')
    .option('--profile <name>', 'profile from the config file');
}

/** Options of every command that resolves gateway settings, under "Gateway and credentials". */
export function gatewayOptions(command: Command, options: { send?: boolean } = {}): Command {
  command
    .optionsGroup(GROUP.gateway)
    .option('--simulate', 'send to the built-in simulator on loopback: nothing reaches a phone');
  settingOptions(command, { send: options.send === true, groups: ['gateway'] });
  configOptions(command.optionsGroup(GROUP.gateway))
    .option('--password-stdin', 'read the password from standard input')
    .option('--allow-insecure', 'allow credentials over plain http to a non-loopback host');
  if (options.send) colorOption(command.optionsGroup(GROUP.output));
  command.addHelpOption(new Option('-h, --help', 'show this help').helpGroup(GROUP.output));
  return command;
}

/** The sending flags of a command that sends a campaign (send, retry), in that command's words. */
export function sendingOptions(
  command: Command,
  help: { dryRun: string; force: string; resume: string; once?: string; retryUnknown?: boolean },
): Command {
  command
    .optionsGroup(GROUP.sending)
    .option('--dry-run', help.dryRun)
    .option(
      '-y, --yes',
      'do not ask before sending over 1,000 messages (asked when stdin is a terminal)',
    )
    .option('--force', help.force)
    .option('--resume', help.resume);
  if (help.once) command.option('--once', help.once);
  if (help.retryUnknown) {
    command.option(
      '--retry-unknown',
      'also resend messages whose outcome is unknown (may send them twice)',
    );
  }
  return command.option(
    '--no-wait',
    'outside the send window (--window, --days, --not-before), exit 5 instead of waiting',
  );
}

/** `--report` of a command that sends a campaign, with where its report goes by default. */
export function reportOption(command: Command, byDefault: string): Command {
  return command
    .optionsGroup(GROUP.report)
    .option('--report <path>', `report file: .csv, .json, .ndjson or .xml (JUnit); ${byDefault}`)
    .option(
      '--html <path>',
      'also write the campaign as one HTML page with charts when the run ends',
    );
}

/** The output flags of a command that sends a campaign (send, retry). */
export function runOutputOptions(command: Command): Command {
  return command
    .optionsGroup(GROUP.output)
    .option('--json', 'print the summary (or the --dry-run plan) as one JSON document on stdout')
    .option('-q, --quiet', 'print only errors')
    .option('-v, --verbose', 'print a line per batch (status, latency, attempts)')
    .option(
      '--progress-interval <seconds>',
      'seconds between progress lines when not on a terminal (default 10)',
      nonNegativeInt,
    );
}

/**
 * A subcommand that takes its command's flags (`campaigns show --state-dir`, `dlr apply
 * --report`) lists them in its help too: those it takes, not those it has its own of, nor those
 * it refuses (`refused`), nor the program's --version.
 */
export function showsInherited(command: Command, refused: readonly string[] = []): Command {
  const base = command.configureHelp();
  return command.configureHelp({
    ...base,
    showGlobalOptions: true,
    visibleGlobalOptions(cmd) {
      const own = new Set(cmd.options.map((o) => o.long));
      const hidden = new Set([...refused, '--version']);
      const all = Object.assign(new Help(), { showGlobalOptions: true });
      return all
        .visibleGlobalOptions(cmd)
        .filter((o) => !own.has(o.long) && !hidden.has(o.long ?? ''));
    },
  });
}
