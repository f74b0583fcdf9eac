// `sms-send check`: its flags, help and action; the check is check.ts's.
import type { Command } from 'commander';
import { EXIT_CODE_MEANING, type ExitCode } from '../../shared/errors.js';
import { colorOption, gatewayOptions, settingOptions } from '../flags.js';
import { environment, examples, exitCodes, GROUP, setHelp } from '../help.js';
import type { RunState } from '../run-state.js';
import { port } from '../options.js';

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

export function defineCheck(program: Command, state: RunState): void {
  const check = program
    .command('check')
    .description('check that the gateway answers and accepts the credentials; sends nothing');
  gatewayOptions(check)
    .optionsGroup('Test message:')
    .option('--to <msisdn>', 'send one real test message to this number instead')
    .option('--text <text>', 'text of the test message (with --to)');
  // A request the gateway surely did not process is sent again, as a send's batch would be.
  settingOptions(check, { keys: ['retries'], heading: GROUP.gateway });
  settingOptions(check, { groups: ['message'], heading: 'Test message:' })
    .optionsGroup('Canary:')
    .option(
      '--await-dlr <duration>',
      "with --to: wait this long for the test message's delivery report, e.g. 60s",
    )
    .option(
      '--dlr-public-url <url>',
      "where the gateway reaches check's receiver (a tunnel or proxy); not needed with " +
        "--simulate or a loopback endpoint, nor with a state URL and --dlr-url (the fleet's receivers)",
    )
    .option('--dlr-port <n>', "port of check's receiver on 127.0.0.1 (default: a free one)", port)
    .option(
      '--dlr-mix <mix>',
      'with --simulate: status=weight,… the simulator reports, e.g. UNDELIV=1 (default DELIVRD)',
    );
  // A fleet's canary reads its report from the database the fleet's receivers keep it in.
  settingOptions(check, { keys: ['stateUrl'], heading: 'Canary:' })
    .optionsGroup(GROUP.output)
    .option('--json', 'print the result as one JSON document on stdout');
  colorOption(check).action(async (options: Record<string, unknown>) => {
    const { runCheck } = await import('./check.js');
    state.exitCode = await runCheck(options);
  });
  setHelp(check, [
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
}
