// The commander program: commands, flags and help only. Actions load their modules lazily to keep --help fast.
import { existsSync } from 'node:fs';
import { Command, Help, Option, type CommanderError } from 'commander';
import { EXIT_CODE_MEANING, UsageError, type ExitCode } from '../errors.js';
import { PROFILE_ENV } from '../config/env.js';
import { SETTING_KEYS, SETTINGS, type SettingGroup, type SettingSpec } from '../config/table.js';
import { keyValue, listOf, mapping, nonNegativeInt, positiveInt } from './options.js';

/** What an action reports back to main.ts: the exit code of a run that ended without an error. */
export interface RunState {
  exitCode: ExitCode;
}

/** The help's flag groups, in the order `send --help` lists them. */
const GROUP = {
  input: 'Input:',
  message: 'Message:',
  cost: 'Cost:',
  sending: 'Sending:',
  report: 'Report and state:',
  output: 'Output:',
  gateway: 'Gateway and credentials:',
} as const;

/** Where each group of the settings table shows in help. */
const SETTING_GROUP: Record<SettingGroup, string> = {
  input: GROUP.input,
  gateway: GROUP.gateway,
  message: GROUP.message,
  cost: GROUP.cost,
  sending: GROUP.sending,
  state: GROUP.report,
};

/** Sections a command's help adds after its flags (examples, exit codes, environment). */
type HelpSection =
  { title: string; items: [string, string][] } | { title: string; lines: string[] };
const helpSections = new WeakMap<Command, HelpSection[]>();

/** Commander codes that are not errors: help and version were asked for. */
const NOT_AN_ERROR = new Set(['commander.helpDisplayed', 'commander.version', 'commander.help']);

export function buildProgram(state: RunState, version: string): Command {
  const program = new Command('sms-send')
    .description(
      'Send bulk SMS from CSV or JSON through the RestSmsRequest gateway, with a per-message report.',
    )
    .version(version, '-V, --version')
    .showSuggestionAfterError()
    // Before the subcommands exist, so they inherit them: commander prints nothing itself and
    // throws; usageErrors() below rewords what it throws, and main.ts prints it.
    .exitOverride()
    .configureOutput({ outputError: () => undefined })
    .configureHelp({
      sortSubcommands: false,
      showGlobalOptions: false,
      formatHelp(this: Help, command: Command, helper: Help): string {
        return (
          Help.prototype.formatHelp.call(this, command, helper) + formatSections(command, helper)
        );
      },
    });

  const send = program
    .command('send', { isDefault: true })
    .description('send every record of the input files (the default command)')
    .argument('<input...>', 'CSV, JSON or NDJSON files with recipients and texts ("-": stdin)')
    .optionsGroup(GROUP.input)
    .option('--text <template>', 'message text with {{column}} placeholders')
    .option('--text-file <path>', 'read the text template from a file')
    .option('--map <to=COL,text=COL>', 'which columns hold the recipient and the text', mapping)
    .option('--input-format <format>', 'csv, json or ndjson (for stdin or odd extensions)')
    .option(
      '--delimiter <char>',
      'CSV delimiter (default: detected from the header among , ; and tab)',
    )
    .option('--skip-invalid', 'send the valid records and report invalid ones, instead of stopping')
    .option(
      '--limit <n>',
      'send only the first N valid records; report the rest as skipped',
      positiveInt,
    )
    .option('--dedupe', 'skip records whose recipient and text repeat an earlier record');
  settingOptions(send, { send: true, groups: ['input', 'message', 'cost'] })
    .optionsGroup(GROUP.sending)
    .option('--dry-run', 'validate and print the plan; send nothing')
    .option('-y, --yes', 'do not ask for confirmation before a large send')
    .option('--force', 'send a campaign that was already sent, all again; overwrite its report')
    .option(
      '--resume',
      'finish an interrupted or stopped campaign from its journal; nothing settled is resent',
    )
    .option(
      '--retry-unknown',
      'also resend messages whose outcome is unknown (may send them twice)',
    )
    .option(
      '--no-wait',
      'outside the send window (--window, --days, --not-before), exit 5 instead of waiting',
    );
  settingOptions(send, { send: true, groups: ['sending'] })
    .optionsGroup(GROUP.report)
    .option(
      '--report <path>',
      'report file: .csv, .json, .ndjson or .xml (JUnit); {date} {time} {name} filled in; ' +
        'default <input>.report.csv',
    );
  runOutputOptions(settingOptions(send, { send: true, groups: ['state'] }));
  gatewayOptions(send, { send: true }).action(
    async (inputs: string[], options: Record<string, unknown>) => {
      const { runSend } = await import('./commands/send.js');
      state.exitCode = await runSend(inputs, options);
    },
  );
  helpSections.set(send, [
    examples([
      [
        'try it: the built-in simulator, nothing reaches a phone',
        'sms-send campaign.csv --simulate',
      ],
      ['validate every record and show the plan; send nothing', 'sms-send campaign.csv --dry-run'],
      [
        'a cron job: endpoint and credentials from config, one report a day',
        "sms-send tonight.csv --yes --quiet --report 'reports/{date}.csv'",
      ],
      [
        'from standard input',
        'generate-list | sms-send - --input-format ndjson --text "Hi {{name}}"',
      ],
      ['finish a run that was interrupted or stopped', 'sms-send campaign.csv --resume'],
    ]),
    exitCodes(),
    environment(),
    learnMore(),
  ]);
  // `sms-send sned x`: "sned" reached send as an input; say it may be a mistyped command.
  program.hook('preSubcommand', (root, sub) => {
    const first = root.args[0];
    if (
      sub === send &&
      first !== undefined &&
      first !== send.name() &&
      /^[a-z][a-z-]*$/i.test(first) &&
      !existsSync(first)
    ) {
      // commander's own wording and suggestion ("did you mean send?"); usageErrors() rewords it.
      (root as unknown as { unknownCommand(): never }).unknownCommand();
    }
  });

  const check = program
    .command('check')
    .description('check that the gateway answers and accepts the credentials; sends nothing');
  gatewayOptions(check)
    .optionsGroup('Test message:')
    .option('--to <msisdn>', 'send one real test message to this number instead')
    .option('--text <text>', 'text of the test message (with --to)');
  settingOptions(check, { groups: ['message'], heading: 'Test message:' })
    .optionsGroup('Canary:')
    .option(
      '--await-dlr <duration>',
      "with --to: wait this long for the test message's delivery report, e.g. 60s",
    )
    .option(
      '--dlr-public-url <url>',
      "where the gateway reaches check's receiver (a tunnel or proxy); not needed with " +
        '--simulate or a loopback endpoint',
    )
    .option(
      '--dlr-port <n>',
      "port of check's receiver on 127.0.0.1 (default: a free one)",
      nonNegativeInt,
    )
    .option(
      '--dlr-mix <mix>',
      'with --simulate: status=weight,… the simulator reports, e.g. UNDELIV=1 (default DELIVRD)',
    )
    .optionsGroup(GROUP.output)
    .option('--json', 'print the result as one JSON document on stdout')
    .option('--no-color', 'no colours in output')
    .action(async (options: Record<string, unknown>) => {
      const { runCheck } = await import('./commands/check.js');
      state.exitCode = await runCheck(options);
    });
  helpSections.set(check, [
    examples([
      ['is the gateway up and are the credentials good?', 'sms-send check --json'],
      ['send one real test message', 'sms-send check --to +4741234567 --text "test"'],
      [
        'an end-to-end canary: the test message must be delivered within a minute',
        'sms-send check --to +4741234567 --await-dlr 60s --dlr-public-url https://canary.example.com',
      ],
    ]),
    // check sends no campaign: only what it can end with, and no state directory.
    exitCodes(CHECK_EXIT_CODES),
    environment(['gateway', 'message']),
  ]);

  const config = program
    .command('config')
    .description('print the resolved settings and where each came from (password masked)');
  gatewayOptions(config);
  settingOptions(config, { groups: ['message', 'cost', 'sending', 'state'] })
    .optionsGroup(GROUP.output)
    .option('--json', 'print them as one JSON document')
    .option('--profiles', "list the config file's profiles and what each sets")
    .option('--no-color', 'no colours in output')
    .action(async (options: Record<string, unknown>) => {
      const { runConfig } = await import('./commands/config.js');
      state.exitCode = await runConfig(options);
    });
  helpSections.set(config, [environment()]);

  const campaigns = program
    .command('campaigns')
    .description('list the campaigns in the state directory, newest first');
  settingOptions(campaigns, { groups: ['state'] })
    .option('--config <path>', 'config file (default: searched from the current folder)')
    .option('--profile <name>', 'profile from the config file')
    .option('--json', 'print them as one JSON document')
    .option('--no-color', 'no colours in output')
    .action(async (options: Record<string, unknown>) => {
      const { runCampaigns } = await import('./commands/campaigns.js');
      state.exitCode = await runCampaigns(options);
    });
  campaigns
    .command('show')
    .description("show one campaign's state: status, counts, inputs, reports")
    .argument('<id>', 'campaign ID (or an unambiguous prefix)')
    .option('--json', 'print it as one JSON document')
    .action(async (id: string, _options: Record<string, unknown>, command: Command) => {
      const { runCampaignShow } = await import('./commands/campaigns.js');
      state.exitCode = await runCampaignShow(id, command.optsWithGlobals());
    });
  campaigns
    .command('prune')
    .description('remove the state of finished campaigns (their reports are kept)')
    .option('--older-than <duration>', 'finished longer ago than this, e.g. 90d')
    .option('--json', 'print what was removed as one JSON document')
    .action(async (_options: Record<string, unknown>, command: Command) => {
      const { runCampaignPrune } = await import('./commands/campaigns.js');
      state.exitCode = await runCampaignPrune(command.optsWithGlobals());
    });

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
    )
    .optionsGroup(GROUP.sending)
    .option('--dry-run', 'choose the records and print the plan; send nothing')
    .option('-y, --yes', 'do not ask for confirmation before a large send')
    .option('--force', 'send this follow-up again although it was sent; overwrite its report')
    .option(
      '--resume',
      'finish an interrupted or stopped follow-up from its journal; nothing settled is resent',
    )
    .option(
      '--no-wait',
      'outside the send window (--window, --days, --not-before), exit 5 instead of waiting',
    );
  settingOptions(retry, { send: true, groups: ['sending'] })
    .optionsGroup(GROUP.report)
    .option(
      '--report <path>',
      'report file: .csv, .json, .ndjson or .xml (JUnit); ' +
        'default beside the original report, <its name>.retry-<ID, 8 characters>.report.<its extension>',
    );
  runOutputOptions(settingOptions(retry, { groups: ['state'] }));
  gatewayOptions(retry, { send: true }).action(
    async (campaign: string, options: Record<string, unknown>) => {
      const { runRetry } = await import('./commands/retry.js');
      state.exitCode = await runRetry(campaign, options);
    },
  );
  helpSections.set(retry, [
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

  program
    .command('simulate')
    .description('run the gateway simulator on loopback, for trying sms-send and for tests')
    .option('--port <n>', 'port (default 8099; 0 picks a free one)', nonNegativeInt)
    .option('--host <host>', 'address to bind (default 127.0.0.1)')
    .option('--seed <n>', 'seed for fault decisions', nonNegativeInt)
    .option(
      '--credentials <user:password>',
      'accept only these credentials (default: any non-empty)',
    )
    .option(
      '--fault <name=value>',
      'switch a fault on, e.g. unavailable=0.1 (repeatable; see README)',
      keyValue,
    )
    .option('--dlr', "call each accepted message's DeliveryReportUrl with a delivery report")
    .option(
      '--dlr-delay <ms>',
      'ms between acceptance and the report (default 1000)',
      nonNegativeInt,
    )
    .option(
      '--dlr-mix <status=weight,...>',
      'statuses to report and their weights, e.g. DELIVRD=0.9,UNDELIV=0.05,EXPIRED=0.05',
    )
    .option('--no-color', 'no colours in output')
    .action(async (options: Record<string, unknown>) => {
      const { runSimulate } = await import('./commands/simulate.js');
      state.exitCode = await runSimulate(options);
    });

  const dlr = program
    .command('dlr')
    .description(
      'receive delivery reports and record them in the report (deliveryStatus, deliveredAt)',
    )
    .requiredOption('--report <file>', 'the campaign report to update (.csv, .json, .ndjson)')
    .option('--port <n>', 'port (default 8098; 0 picks a free one)', nonNegativeInt)
    .option('--host <host>', 'address to bind (default 127.0.0.1)')
    .option('--out <file>', 'NDJSON log of every request received (default <report>.dlr.ndjson)')
    .option(
      '--accept-unsigned',
      'also take reports without a proof: only for campaigns sent before sms-send signed its ' +
        'DeliveryReportUrls (refused for those sent since)',
    )
    .option('--json', 'print the summary as one JSON document on stdout')
    .option('-v, --verbose', 'print a line per report received')
    .option('--no-color', 'no colours in output')
    .action(async (options: Record<string, unknown>) => {
      const { runDlr } = await import('./commands/dlr.js');
      state.exitCode = await runDlr(options);
    });
  dlr
    .command('apply')
    .description('fold a log of delivery reports into the report named by dlr --report')
    .requiredOption('--from <log>', 'NDJSON log of delivery reports (what sms-send dlr writes)')
    .usage('--report <file> --from <log>')
    .addHelpText('after', '\n--report <file> (required) is the report to update, as for dlr.')
    .action(async (_options: Record<string, unknown>, command: Command) => {
      const { runDlrApply } = await import('./commands/dlr.js');
      state.exitCode = await runDlrApply(command.optsWithGlobals());
    });

  const report = program
    .command('report')
    .alias('summary')
    .description("count a report's rows by outcome, StatusCode and delivery status")
    .argument('<file>', 'a report (.csv, .json, .ndjson)')
    .option(
      '--fail-under <name=share,...>',
      'exit 1 when a share is below its threshold, e.g. accepted=99%,delivered=95%',
    )
    .option('--json', 'print the counts as one JSON document')
    .option('--no-color', 'no colours in output')
    .action(async (file: string, options: Record<string, unknown>) => {
      const { runReport } = await import('./commands/report.js');
      state.exitCode = await runReport(file, options);
    });
  helpSections.set(report, [
    examples([
      ['a CI gate', 'sms-send report campaign.report.csv --fail-under accepted=99%,delivered=95%'],
    ]),
    exitCodes(REPORT_EXIT_CODES),
  ]);

  helpSections.set(program, [
    examples([
      [
        'try it: the built-in simulator, nothing reaches a phone',
        'sms-send campaign.csv --simulate',
      ],
      ['check the gateway and the credentials (CI)', 'sms-send check'],
      ['count a report by outcome', 'sms-send report campaign.report.csv'],
    ]),
    learnMore(),
  ]);
  usageErrors(program);
  return program;
}

/** The output flags of a command that sends a campaign (send, retry). */
function runOutputOptions(command: Command): Command {
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

/** Options of every command that resolves gateway settings, under "Gateway and credentials". */
function gatewayOptions(command: Command, options: { send?: boolean } = {}): Command {
  command
    .optionsGroup(GROUP.gateway)
    .option('--simulate', 'send to the built-in simulator on loopback: nothing reaches a phone');
  settingOptions(command, { send: options.send === true, groups: ['gateway'] });
  command
    .optionsGroup(GROUP.gateway)
    .option('--config <path>', 'config file (default: searched from the current folder)')
    .option('--profile <name>', 'profile from the config file')
    .option('--password-stdin', 'read the password from standard input')
    .option('--allow-insecure', 'allow credentials over plain http to a non-loopback host');
  if (options.send) command.optionsGroup(GROUP.output).option('--no-color', 'no colours in output');
  command.addHelpOption(new Option('-h, --help', 'show this help').helpGroup(GROUP.output));
  return command;
}

/**
 * The settings table's flags, with their help and defaults, under their group's heading (or
 * `heading`); validation is the schema's job.
 */
export function settingOptions(
  command: Command,
  options: { send?: boolean; groups?: readonly SettingGroup[]; heading?: string },
): Command {
  for (const key of SETTING_KEYS) {
    const spec: SettingSpec = SETTINGS[key];
    if (spec.flag === undefined || (spec.sendOnly && !options.send)) continue;
    if (options.groups && !options.groups.includes(spec.group)) continue;
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

function examples(items: [comment: string, line: string][]): HelpSection {
  return {
    title: 'Examples:',
    lines: items.flatMap(([comment, line]) => [`# ${comment}`, `$ ${line}`]),
  };
}

/** What `sms-send check` can end with, in its own words. */
const CHECK_EXIT_CODES: Partial<Record<ExitCode, string>> = {
  0:
    'the gateway answered and took the credentials (and the test message, with --to; ' +
    'which was delivered, with --await-dlr)',
  1: 'with --await-dlr: the delivery report came with another status (UNDELIV, EXPIRED, REJECTD…)',
  2: 'usage or config error; nothing was sent',
  3:
    'the gateway could not be used, or refused the credentials or the test message, or no ' +
    'delivery report came within --await-dlr',
  70: EXIT_CODE_MEANING[70],
};

/** What `sms-send report` can end with. */
const REPORT_EXIT_CODES: Partial<Record<ExitCode, string>> = {
  0: 'the report was read (and every --fail-under share is at or above its threshold)',
  1: 'a --fail-under share is below its threshold',
  2: 'usage error, a malformed --fail-under, or the file is not a readable report',
  70: EXIT_CODE_MEANING[70],
};

/** The exit codes of a command: by default every one, from src/errors.ts. */
export function exitCodes(
  meanings: Partial<Record<ExitCode, string>> = EXIT_CODE_MEANING,
): HelpSection {
  return {
    title: 'Exit codes:',
    items: Object.entries(meanings).map(([code, meaning]) => [code, meaning]),
  };
}

/** The variables that set something a command uses: the settings table's, and the profile's. */
export function environment(groups?: readonly SettingGroup[]): HelpSection {
  const items: [string, string][] = [];
  for (const key of SETTING_KEYS) {
    const spec: SettingSpec = SETTINGS[key];
    if (spec.env === undefined || (groups && !groups.includes(spec.group))) continue;
    items.push([spec.env, spec.help]);
  }
  items.push([PROFILE_ENV, 'profile from the config file (as --profile)']);
  items.push(['NO_COLOR', 'no colours in output (as --no-color)']);
  return { title: 'Environment:', items };
}

function learnMore(): HelpSection {
  return {
    title: 'Learn more:',
    lines: [
      'sms-send <command> --help shows what a command takes. The README explains',
      'input, the report, campaigns and state, cron, CI and the --json documents.',
    ],
  };
}

/** The sections a command adds after commander's own help, formatted as commander formats lists. */
function formatSections(command: Command, helper: Help): string {
  const sections = helpSections.get(command) ?? [];
  const out: string[] = [];
  for (const section of sections) {
    if ('lines' in section) {
      out.push(helper.styleTitle(section.title), ...section.lines.map((line) => `  ${line}`), '');
      continue;
    }
    const width = Math.max(...section.items.map(([term]) => helper.displayWidth(term)));
    const items = section.items.map(([term, text]) => helper.formatItem(term, width, text, helper));
    out.push(...helper.formatItemList(section.title, items, helper));
  }
  return out.length === 0 ? '' : `\n${out.join('\n')}`;
}

/**
 * Every command's usage errors in sms-send's voice: commander's message without its "error: ",
 * with a hint, thrown as a UsageError for main.ts to print (exit 2). Help and version stay
 * commander's own (main.ts treats them as success).
 */
function usageErrors(command: Command): void {
  command.exitOverride((error) => {
    if (NOT_AN_ERROR.has(error.code)) throw error;
    throw new UsageError(usageMessage(error, command), 'usage');
  });
  for (const sub of command.commands) usageErrors(sub);
}

/** `error: unknown option '--simlate'\n(Did you mean --simulate?)` → one line with a hint. */
export function usageMessage(error: CommanderError, command: Command): string {
  let message = error.message.replace(/^error: /, '');
  let hint: string | undefined;
  const suggestion = /\s*\(Did you mean (.+)\?\)\s*$/.exec(message);
  if (suggestion) {
    message = message.slice(0, suggestion.index);
    hint = `did you mean ${suggestion[1]}?`;
  }
  // `option '--limit <n>' argument 'x' is invalid. must be …` → `--limit "x": must be …`, as
  // the settings' own problems read.
  const invalid = /^option '(--[\w-]+)[^']*' argument '(.*)' is invalid\. (.*)$/s.exec(message);
  if (invalid) message = `${invalid[1]} "${invalid[2]}": ${invalid[3]}`;
  // Only the root raises it, for a first input that does not exist and looks like a command.
  if (error.code === 'commander.unknownCommand') {
    message = message.replace('unknown command', 'unknown command or input');
  }
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  // A missing input with no command given is best answered by the overview.
  const implicit = command.parent?.args[0] !== command.name();
  const helpOf = error.code === 'commander.missingArgument' && implicit ? [names[0]] : names;
  return `${message} (${hint ?? `run ${helpOf.join(' ')} --help`})`;
}
