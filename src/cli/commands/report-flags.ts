// `sms-send report` (alias summary): its flags, help and action.
import type { Command } from 'commander';
import { EXIT_CODE_MEANING, type ExitCode } from '../../shared/errors.js';
import { colorOption, configOptions, settingOptions } from '../flags.js';
import { examples, exitCodes, setHelp } from '../help.js';
import { programOf } from '../invocation.js';
import type { RunState } from '../run-state.js';

/** What `sms-send report` can end with. */
const REPORT_EXIT_CODES: Partial<Record<ExitCode, string>> = {
  0: 'the report was read (and every --fail-under share is at or above its threshold)',
  1: 'a --fail-under share is below its threshold',
  2: 'usage error, a malformed --fail-under, the file is not a readable report, no such campaign, or the page cannot be written',
  70: EXIT_CODE_MEANING[70],
};

export function defineReport(program: Command, state: RunState): void {
  const report = program
    .command('report')
    .alias('summary')
    .description(
      "count a report's rows by outcome, StatusCode and delivery status; --html writes a page with charts",
    )
    .argument('<report>', "a report (.csv, .json, .ndjson), or a campaign's ID")
    .option(
      '--fail-under <name=share,...>',
      'exit 1 when a share is below its threshold, e.g. accepted=99%,delivered=95%',
    )
    .option('--json', 'print the counts as one JSON document')
    .option('--html <file>', 'also write the campaign as one self-contained HTML page with charts')
    .option(
      '-o, --output <file>',
      "write the campaign's complete report here, on any host (with a state URL, from the database)",
    );
  settingOptions(report, { groups: ['state'] });
  // The page's cost: the campaign's own prices unless these are given (docs/report.md).
  settingOptions(report, { keys: ['pricePerSegment', 'currency'] });
  configOptions(report);
  colorOption(report).action(async (file: string, options: Record<string, unknown>) => {
    const { runReport } = await import('./report.js');
    state.exitCode = await runReport(file, options, programOf(state.invocation));
  });
  setHelp(report, [
    examples([
      ['a CI gate', 'sms-send report campaign.report.csv --fail-under accepted=99%,delivered=95%'],
      ['a page to look at or mail', 'sms-send report 3f9c2a7b1d0e4f56 --html campaign.html'],
      [
        'the report of a campaign another host finished',
        'sms-send report 3f9c2a7b1d0e4f56 --output campaign.report.csv',
      ],
      [
        'the page priced otherwise than the send was',
        'sms-send report 3f9c2a7b1d0e4f56 --html campaign.html --price-per-segment 47=0.35,default=0.5 --currency NOK',
      ],
    ]),
    exitCodes(REPORT_EXIT_CODES),
  ]);
}
