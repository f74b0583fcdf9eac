// `sms-send report` (alias summary): its flags, help and action.
import type { Command } from 'commander';
import { EXIT_CODE_MEANING, type ExitCode } from '../../shared/errors.js';
import { colorOption } from '../flags.js';
import { examples, exitCodes, setHelp } from '../help.js';
import type { RunState } from '../run-state.js';

/** What `sms-send report` can end with. */
const REPORT_EXIT_CODES: Partial<Record<ExitCode, string>> = {
  0: 'the report was read (and every --fail-under share is at or above its threshold)',
  1: 'a --fail-under share is below its threshold',
  2: 'usage error, a malformed --fail-under, or the file is not a readable report',
  70: EXIT_CODE_MEANING[70],
};

export function defineReport(program: Command, state: RunState): void {
  const report = program
    .command('report')
    .alias('summary')
    .description("count a report's rows by outcome, StatusCode and delivery status")
    .argument('<file>', 'a report (.csv, .json, .ndjson)')
    .option(
      '--fail-under <name=share,...>',
      'exit 1 when a share is below its threshold, e.g. accepted=99%,delivered=95%',
    )
    .option('--json', 'print the counts as one JSON document');
  colorOption(report).action(async (file: string, options: Record<string, unknown>) => {
    const { runReport } = await import('./report.js');
    state.exitCode = await runReport(file, options);
  });
  setHelp(report, [
    examples([
      ['a CI gate', 'sms-send report campaign.report.csv --fail-under accepted=99%,delivered=95%'],
    ]),
    exitCodes(REPORT_EXIT_CODES),
  ]);
}
