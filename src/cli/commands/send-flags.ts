// `sms-send send` (the default command): its flags, help and action; the run is send.ts's.
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import {
  gatewayOptions,
  reportOption,
  runOutputOptions,
  sendingOptions,
  settingOptions,
} from '../flags.js';
import {
  environment,
  examples,
  exitCodes,
  GROUP,
  learnMore,
  setHelp,
  type HelpSection,
} from '../help.js';
import { listOf, mapping, positiveInt } from '../options.js';
import { sampleExample } from '../sample.js';
import type { RunState } from '../run-state.js';

export function defineSend(program: Command, state: RunState): Command {
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
      'send only the first N valid records; report the rest as skipped (not part of the campaign: --resume --limit M sends up to M)',
      positiveInt,
    )
    .option('--dedupe', 'skip records whose recipient and text repeat an earlier record')
    .option(
      '--skip-sent-by <campaign>',
      'send this content as a campaign of its own, leaving out every recipient that campaign (ID or its start), or a campaign linked to it by --skip-sent-by or retry, accepted or may have sent; repeatable',
      listOf,
    );
  settingOptions(send, { send: true, groups: ['input', 'message', 'cost'] });
  sendingOptions(send, {
    dryRun: 'validate and print the plan; send nothing',
    force: 'send a campaign that was already sent, all again; overwrite its report',
    resume: 'finish an interrupted or stopped campaign from its journal; nothing settled is resent',
    once: 'start the campaign, finish it if an earlier run was interrupted or stopped, or do nothing if it is finished (exit 0, or 1 as the run that finished it when some records were not accepted): one command line for a job that may run again',
    retryUnknown: true,
  });
  settingOptions(send, { send: true, groups: ['sending'] });
  reportOption(send, '{date} {time} {name} filled in; default <input>.report.csv');
  runOutputOptions(settingOptions(send, { send: true, groups: ['state'] }));
  gatewayOptions(send, { send: true }).action(
    async (inputs: string[], options: Record<string, unknown>) => {
      const { runSend } = await import('./send.js');
      state.exitCode = await runSend(inputs, options, state.invocation);
    },
  );
  setHelp(send, sendHelp());
  reportMistypedCommand(program, send);
  return send;
}

function sendHelp(): HelpSection[] {
  return [
    examples([
      [
        'try it: the built-in simulator, nothing reaches a phone',
        `sms-send ${sampleExample().send} --simulate`,
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
  ];
}

/** `sms-send sned x`: "sned" reached send as an input; say it may be a mistyped command. */
function reportMistypedCommand(program: Command, send: Command): void {
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
}
