// `sms-send simulate`: its flags and action; the simulator is src/simulator's.
import { Option, type Command } from 'commander';
import { colorOption } from '../flags.js';
import { keyValue, nonNegativeInt, port } from '../options.js';
import type { RunState } from '../run-state.js';
import { examples, exitCodes, setHelp } from '../help.js';
import { EXIT_CODE_MEANING } from '../../shared/errors.js';
import { FAULT_HELP } from '../../simulator/faults.js';

export function defineSimulate(program: Command, state: RunState): void {
  const simulate = program
    .command('simulate')
    .description('run the gateway simulator on loopback, for trying sms-send and for tests')
    .option('--port <n>', 'port (default 8099; 0 picks a free one)', port)
    .option('--host <host>', 'address to bind (default 127.0.0.1)')
    .option('--seed <n>', 'seed for fault decisions', nonNegativeInt)
    .addOption(
      new Option(
        '--transaction-ids <kind>',
        'counter (a prefix and a count, the default) or random (32 hex digits each)',
      ).choices(['counter', 'random']),
    )
    .option(
      '--credentials <user:password>',
      'accept only these credentials (default: any non-empty)',
    )
    .option(
      '--fault <name=value>',
      'switch a fault on, e.g. unavailable=0.1 (repeatable; the faults are listed below)',
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
    .option(
      '--ledger <file>',
      'append every accepted message to FILE as NDJSON, and count MessageIds accepted twice (GET /stats, and the stop line)',
    );
  colorOption(simulate).action(async (options: Record<string, unknown>) => {
    const { runSimulate } = await import('./simulate.js');
    state.exitCode = await runSimulate(options, state.invocation.program);
  });
  setHelp(simulate, [
    {
      title: 'Faults (--fault name=value):',
      items: Object.entries(FAULT_HELP).map(([name, [value, effect]]) => [
        `${name}=${value}`,
        effect,
      ]),
    },
    examples([
      ['a gateway to try sms-send against', 'sms-send simulate --port 8099'],
      [
        'check that nothing was sent twice: the stop line counts duplicates',
        'sms-send simulate --port 8099 --ledger accepted.ndjson',
      ],
      [
        'one that fails now and then, the same way every time',
        'sms-send simulate --port 8099 --fault unavailable=0.2 --fault rejectMessage=0.05 --seed 7',
      ],
      [
        'one that also sends delivery reports',
        'sms-send simulate --port 8099 --dlr --dlr-mix DELIVRD=0.9,UNDELIV=0.1',
      ],
    ]),
    exitCodes({
      0: 'stopped (Ctrl-C)',
      2: 'usage error (a fault or port that is not valid), or the port is taken',
      70: EXIT_CODE_MEANING[70],
    }),
  ]);
}
