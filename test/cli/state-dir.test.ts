// Every command that reads campaign state takes --state-dir (beside SMS_SEND_STATE_DIR and the
// config's stateDir), after its own name as users type it, and lists it in its help.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { ExitCode } from '../../src/shared/errors.js';
import { signedCampaign } from '../helpers/dlr-proof.js';
import { tempDir } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';

/** Each command that reads or writes the state directory, with the arguments it needs. */
const READS_STATE: [path: string, args: string[]][] = [
  ['send', ['x.csv']],
  ['retry', ['3f2a9b1c']],
  ['config', []],
  ['campaigns', []],
  ['campaigns list', []],
  ['campaigns show', ['3f2a9b1c']],
  ['campaigns prune', ['--older-than', '90d']],
  ['dlr', ['--report', 'r.csv']],
  ['dlr apply', ['--report', 'r.csv', '--from', 'dlr.ndjson']],
];

/** Stops a parsed command line before its action runs. */
class Parsed extends Error {
  constructor(readonly options: Record<string, unknown>) {
    super('parsed');
  }
}

function program(): Command {
  return buildProgram(
    { exitCode: ExitCode.ok, invocation: { program: 'sms-send', args: [] } },
    '0.0.0-test',
  )
    .hook('preAction', (_root, action) => {
      throw new Parsed(action.optsWithGlobals());
    })
    .configureOutput({ getOutHelpWidth: () => 80, getOutHasColors: () => false });
}

function find(path: string): Command {
  let found = program();
  for (const name of path.split(' ')) found = found.commands.find((c) => c.name() === name)!;
  return found;
}

describe('--state-dir on every command that reads campaign state', () => {
  it('the list names commands that exist', () => {
    for (const [path] of READS_STATE) expect(find(path), path).toBeDefined();
  });

  it.each(READS_STATE)('sms-send %s … --state-dir DIR', async (path, args) => {
    const argv = [...path.split(' '), ...args, '--state-dir', '/tmp/elsewhere'];
    const error: unknown = await program()
      .parseAsync(argv, { from: 'user' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error, String(error)).toBeInstanceOf(Parsed);
    expect((error as Parsed).options.stateDir).toBe('/tmp/elsewhere');
  });

  it.each(READS_STATE)('sms-send %s --help lists --state-dir', (path) => {
    const command = find(path);
    expect(command.helpInformation()).toContain('--state-dir <path>');
  });
});

describe('dlr apply --state-dir: the campaign state it reads is the one named', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    dir = await tempDir();
  });
  afterAll(async () => {
    await dir.remove();
  });

  it("believes a delivery report signed with that state directory's secret", async () => {
    const named = join(dir.path, 'named-state');
    // Where SMS_SEND_STATE_DIR points: --state-dir outranks it, so its secret is not the one used.
    const other = join(dir.path, 'other-state');
    await mkdir(other, { recursive: true });
    const report = join(dir.path, 'r.csv');
    await writeFile(
      report,
      'row,to,messageId,outcome,statusCode,statusDescription,transactionId,extraInfo,attempts,error,segments,encoding\n' +
        '1,4741234567,m1,accepted,0,Accepted,t1,,1,,1,GSM-7\n',
    );
    const proof = await signedCampaign(named, 'c0ffee00c0ffee00', [report]);
    const log = join(dir.path, 'dlr.ndjson');
    await writeFile(
      log,
      `${JSON.stringify({ msgid: 'm1', status: 'DELIVRD', smsig: proof('m1') })}\n`,
    );
    const apply = await runInProcess(
      ['dlr', 'apply', '--report', report, '--from', log, '--state-dir', named, '--json'],
      { cwd: dir.path, env: { SMS_SEND_STATE_DIR: other } },
    );
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(JSON.parse(apply.stdout)).toMatchObject({ dlrApply: { reports: 1, matched: 1 } });
  });
});
