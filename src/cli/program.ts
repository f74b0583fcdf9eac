// The commander program: commands and flags only. Actions load their modules lazily to keep --help fast.
import { Command, Option } from 'commander';
import type { ExitCode } from '../errors.js';
import { SETTING_KEYS, SETTINGS, type SettingGroup, type SettingSpec } from '../config/table.js';
import { keyValue, mapping, nonNegativeInt, positiveInt } from './options.js';

/** What an action reports back to main.ts: the exit code of a run that ended without an error. */
export interface RunState {
  exitCode: ExitCode;
}

export function buildProgram(state: RunState, version: string): Command {
  const program = new Command('sms-send')
    .description(
      'Send bulk SMS from CSV or JSON through the RestSmsRequest gateway, with a per-message report.',
    )
    .version(version, '-V, --version')
    .showSuggestionAfterError()
    // Before the subcommands exist, so they inherit it: main.ts maps every usage error to exit 2.
    .exitOverride()
    .configureHelp({ sortSubcommands: false, showGlobalOptions: false });

  const send = gatewayOptions(program.command('send', { isDefault: true }), { send: true })
    .description('send every record of the input files (the default command)')
    .argument('<input...>', 'CSV, JSON or NDJSON files with recipients and texts')
    .option(
      '--report <path>',
      'report file (.csv, .json, .ndjson, .xml); default <input>.report.csv',
    )
    .option('--force', 'send a campaign that was already sent, all again; overwrite its report')
    .option('--dry-run', 'validate and print the plan; send nothing')
    .option('-y, --yes', 'do not ask for confirmation before a large send')
    .option('--skip-invalid', 'send the valid records and report invalid ones, instead of stopping')
    .option(
      '--limit <n>',
      'send only the first N valid records; report the rest as skipped',
      positiveInt,
    )
    .option('--dedupe', 'skip records whose recipient and text repeat an earlier record')
    .option('--json', 'print the summary (or the --dry-run plan) as one JSON document on stdout')
    .option(
      '--resume',
      'finish an interrupted or stopped campaign from its journal; nothing settled is resent',
    )
    .option(
      '--retry-unknown',
      'also resend messages whose outcome is unknown (may send them twice)',
    )
    .option('-q, --quiet', 'print only errors')
    .option('-v, --verbose', 'print a line per batch (status, latency, attempts)')
    .option(
      '--progress-interval <seconds>',
      'seconds between progress lines when not on a terminal (default 10)',
      nonNegativeInt,
    )
    .option('--text <template>', 'message text with {{column}} placeholders')
    .option('--text-file <path>', 'read the text template from a file')
    .option('--map <to=COL,text=COL>', 'which columns hold the recipient and the text', mapping)
    .option('--input-format <format>', 'csv, json or ndjson (for stdin or odd extensions)')
    .option(
      '--delimiter <char>',
      'CSV delimiter (default: detected from the header among , ; and tab)',
    )
    .action(async (inputs: string[], options: Record<string, unknown>) => {
      const { runSend } = await import('./commands/send.js');
      state.exitCode = await runSend(inputs, options);
    });
  send.helpOption('-h, --help', 'show help for send');

  gatewayOptions(program.command('check'))
    .description('check that the gateway answers and accepts the credentials; sends nothing')
    .option('--to <msisdn>', 'send one real test message to this number instead')
    .option('--text <text>', 'text of the test message (with --to)')
    .option('--json', 'print the result as one JSON document on stdout')
    .action(async (options: Record<string, unknown>) => {
      const { runCheck } = await import('./commands/check.js');
      state.exitCode = await runCheck(options);
    });

  gatewayOptions(program.command('config'))
    .description('print the resolved settings and where each came from (password masked)')
    .option('--json', 'print them as one JSON document')
    .option('--profiles', "list the config file's profiles and what each sets")
    .action(async (options: Record<string, unknown>) => {
      const { runConfig } = await import('./commands/config.js');
      state.exitCode = await runConfig(options);
    });

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

  program
    .command('report')
    .alias('summary')
    .description("count a report's rows by outcome, StatusCode and delivery status")
    .argument('<file>', 'a report (.csv, .json, .ndjson)')
    .option('--json', 'print the counts as one JSON document')
    .option('--no-color', 'no colours in output')
    .action(async (file: string, options: Record<string, unknown>) => {
      const { runReport } = await import('./commands/report.js');
      state.exitCode = await runReport(file, options);
    });

  return program;
}

/** Options of every command that resolves gateway settings: the table's flags, then the rest. */
function gatewayOptions(command: Command, options: { send?: boolean } = {}): Command {
  command.option(
    '--simulate',
    'send to the built-in simulator on loopback: nothing reaches a phone',
  );
  settingOptions(command, { send: options.send === true });
  return command
    .option('--config <path>', 'config file (default: searched from the current folder)')
    .option('--profile <name>', 'profile from the config file')
    .option('--password-stdin', 'read the password from standard input')
    .option('--allow-insecure', 'allow credentials over plain http to a non-loopback host')
    .option('--no-color', 'no colours in output');
}

/** The settings table's flags, with their help and defaults; validation is the schema's job. */
function settingOptions(
  command: Command,
  options: { send?: boolean; groups?: readonly SettingGroup[] },
): Command {
  for (const key of SETTING_KEYS) {
    const spec: SettingSpec = SETTINGS[key];
    if (spec.flag === undefined || (spec.sendOnly && !options.send)) continue;
    if (options.groups && !options.groups.includes(spec.group)) continue;
    const fallback =
      spec.default === undefined
        ? ''
        : ` (default ${typeof spec.default === 'string' ? spec.default : JSON.stringify(spec.default)})`;
    const option = new Option(spec.flag, `${spec.help}${fallback}`);
    if (spec.repeatable) option.argParser(keyValue);
    command.addOption(option);
  }
  return command;
}
