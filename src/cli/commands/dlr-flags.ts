// `sms-send dlr` and `dlr apply`: flags, help and actions.
import type { Command } from 'commander';
import { colorOption, configOptions, settingOptions, showsInherited } from '../flags.js';
import { nonNegativeInt } from '../options.js';
import type { RunState } from '../run-state.js';

export function defineDlr(program: Command, state: RunState): void {
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
    .option('-v, --verbose', 'print a line per report received');
  // The campaign's state (its delivery-report key, its journal) is found where a send put it.
  configOptions(settingOptions(dlr, { groups: ['state'] }));
  colorOption(dlr).action(async (options: Record<string, unknown>) => {
    const { runDlr } = await import('./dlr.js');
    state.exitCode = await runDlr(options, state.invocation.program);
  });
  const apply = dlr
    .command('apply')
    .description('fold a log of delivery reports into the report named by dlr --report')
    .requiredOption('--from <log>', 'NDJSON log of delivery reports (what sms-send dlr writes)')
    .usage('--report <file> --from <log>')
    .addHelpText('after', '\n--report <file> (required) is the report to update, as for dlr.')
    .action(async (_options: Record<string, unknown>, command: Command) => {
      const { runDlrApply } = await import('./dlr.js');
      state.exitCode = await runDlrApply(command.optsWithGlobals());
    });
  showsInherited(apply);
}
