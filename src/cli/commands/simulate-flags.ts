// `sms-send simulate`: its flags and action; the simulator is src/simulator's.
import type { Command } from 'commander';
import { colorOption } from '../flags.js';
import { keyValue, nonNegativeInt } from '../options.js';
import type { RunState } from '../run-state.js';

export function defineSimulate(program: Command, state: RunState): void {
  const simulate = program
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
    );
  colorOption(simulate).action(async (options: Record<string, unknown>) => {
    const { runSimulate } = await import('./simulate.js');
    state.exitCode = await runSimulate(options, state.invocation.program);
  });
}
