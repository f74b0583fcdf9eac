// `sms-send dlr` and `dlr apply`: flags, help and actions.
import { programOf } from '../invocation.js';
import type { Command } from 'commander';
import { colorOption, configOptions, settingOptions, showsInherited } from '../flags.js';
import { port } from '../options.js';
import type { RunState } from '../run-state.js';
import { UsageError } from '../../shared/errors.js';
import { examples, exitCodes, setHelp } from '../help.js';
import { EXIT_CODE_MEANING } from '../../shared/errors.js';

/** The receiver's own flags: apply, which only folds a log in, refuses them. */
const RECEIVER_ONLY = ['--port', '--host', '--out'];

export function defineDlr(program: Command, state: RunState): void {
  const dlr = program
    .command('dlr')
    .description(
      'receive delivery reports and record them in the report (deliveryStatus, deliveredAt)',
    )
    .option(
      '--report <file>',
      'the campaign report to update (.csv, .json, .ndjson); optional with a state URL, which keeps every report',
    )
    .option('--port <n>', 'port (default 8098; 0 picks a free one)', port)
    .option('--host <host>', 'address to bind (default 127.0.0.1)')
    .option(
      '--out <file>',
      'NDJSON log of every request received (default <report>.dlr.ndjson, or sms-send-dlr.ndjson without --report)',
    )
    .option('--json', 'print the summary as one JSON document on stdout')
    .option('-v, --verbose', 'print a line per report received');
  // The campaign's state (its delivery-report key, its journal) is found where a send put it.
  configOptions(settingOptions(dlr, { groups: ['state'] }));
  colorOption(dlr).action(async (options: Record<string, unknown>) => {
    const { runDlr } = await import('./dlr.js');
    state.exitCode = await runDlr(options, programOf(state.invocation));
  });
  const apply = dlr
    .command('apply')
    .description('fold a log of delivery reports into the report named by dlr --report')
    .requiredOption('--from <log>', 'NDJSON log of delivery reports (what sms-send dlr writes)')
    .usage('--report <file> --from <log>')
    .addHelpText('after', '\n--report <file> (required) is the report to update, as for dlr.')
    .action(async (_options: Record<string, unknown>, command: Command) => {
      const options: Record<string, unknown> = command.optsWithGlobals();
      for (const flag of RECEIVER_ONLY) {
        if (options[flag.slice(2)] !== undefined) {
          throw new UsageError(
            `${flag} is an option of the receiver (sms-send dlr), not of dlr apply`,
          );
        }
      }
      const { runDlrApply } = await import('./dlr.js');
      state.exitCode = await runDlrApply(options);
    });
  showsInherited(apply, RECEIVER_ONLY);
  setHelp(dlr, [
    examples([
      ['receive on 127.0.0.1:8098 into the report', 'sms-send dlr --report campaign.report.csv'],
      [
        'on every interface, behind a tunnel the gateway can reach',
        'sms-send dlr --report campaign.report.csv --host 0.0.0.0 --port 8098',
      ],
      [
        'a fleet: every campaign of the database, several receivers behind one URL',
        'SMS_SEND_STATE_URL=postgres://sms@db/sms sms-send dlr --host 0.0.0.0',
      ],
    ]),
    exitCodes({
      0: 'stopped (Ctrl-C, SIGTERM), every report received recorded in the report or the database',
      1: 'stopped, but the last update of the report could not be made: dlr apply folds the log in',
      2: 'usage error, or the report or its folder cannot be used',
      70: EXIT_CODE_MEANING[70],
    }),
  ]);
  setHelp(apply, [
    examples([
      [
        "fold in a receiver's log (yours, or dlr's own)",
        'sms-send dlr apply --report campaign.report.csv --from campaign.report.csv.dlr.ndjson',
      ],
    ]),
    exitCodes({
      0: 'every delivery report matched a row and is recorded',
      1: 'some delivery reports matched no row of the report (counted in the summary)',
      2: 'usage error, or the report or the log cannot be read',
      70: EXIT_CODE_MEANING[70],
    }),
  ]);
}
