// Input handling as only the built binary shows it: standard input, a missing file, exit 2 with the
// explanation on stderr and nothing sent, --text-file, the dry-run document, and message defaults
// named by flag or config key. The record-level tables run in-process in test/pipeline/input.test.ts.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { type Simulator } from '../../src/simulator/index.js';
import type { CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { parseCsv } from '../helpers/files.js';
import {
  BAD_RECORDS_BY_FIELD,
  BAD_RECORDS_PROBLEMS,
  byField,
  firstLine,
  problemLines,
  startsWith,
} from '../helpers/problems.js';
import { suiteFolder } from '../helpers/suite.js';

/** Small fixtures live here; the runs use it as their working folder so errors name files briefly. */
const FIXTURES = fileURLToPath(new URL('../fixtures/input/', import.meta.url));
const CREDENTIALS = { SMS_SEND_USERNAME: 'tester', SMS_SEND_PASSWORD: 'not-a-secret' };

const suite = suiteFolder();
let runs = 0;

interface Run extends CliResult {
  /** The simulator this run sent to: its own, so `requests` and `ledger` hold only this run. */
  sim: Simulator;
  report: string;
}

/** Runs `sms-send` in the fixtures folder against a fresh simulator, with a fresh report path. */
async function send(args: string[], options: { stdin?: string } = {}): Promise<Run> {
  const sim = await suite.simulator();
  const report = join(suite.path, `report-${++runs}.csv`);
  // Some runs here are over the same fixture: each its own state.
  const result = await runInProcess([...args, '--endpoint', sim.url, '--report', report], {
    cwd: FIXTURES,
    env: { ...CREDENTIALS, SMS_SEND_STATE_DIR: join(suite.path, `state-${runs}`) },
    stdin: options.stdin,
  });
  return { ...result, sim, report };
}

/** The request items the simulator accepted, exactly as received. */
function sent(run: Run): Record<string, unknown>[] {
  return run.sim.ledger.map((entry) => entry.message);
}

function sentPairs(run: Run): [unknown, unknown][] {
  return sent(run).map((m) => [m.DestinationAddress, m.UserData]);
}

async function reportRows(run: Run): Promise<Record<string, string>[]> {
  const rows = parseCsv(await readFile(run.report, 'utf8'));
  return rows.sort((a, b) => Number(a.row) - Number(b.row));
}

/** What a stopped run left behind: its exit code, the simulator's traffic, files beside the report. */
async function aftermath(run: Run) {
  const prefix = basename(run.report);
  return {
    code: run.code,
    requests: run.sim.requests.length,
    accepted: run.sim.ledger.length,
    files: (await readdir(suite.path)).filter((name) => name.startsWith(prefix)),
  };
}

/** A run that stopped before sending: exit 2, no request reached the simulator, no report left. */
const NOTHING_SENT = { code: 2, requests: 0, accepted: 0, files: [] };

describe('standard input', () => {
  it('reads - (stdin) with --input-format ndjson', async ({ expect }) => {
    const stdin = await readFile(join(FIXTURES, 'records.ndjson'), 'utf8');
    const run = await send(['-', '--input-format', 'ndjson'], { stdin });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(sentPairs(run)).toEqual([
      [4741234567, 'First line record'],
      [46701234567, 'Swedish recipient'],
    ]);
    const rows = await reportRows(run);
    expect(rows.map((r) => r.outcome)).toEqual(['accepted', 'accepted']);
  });
});

describe('bad input: exit 2, the error names file and line, nothing reaches the simulator', () => {
  // `at` is the exact "file:line" (or "file") the error must start with; `says` a phrase of the reason.
  const cases: { name: string; args: string[]; at: string; says: string }[] = [
    {
      name: 'a file that does not exist',
      args: ['no-such-file.csv'],
      at: 'no-such-file.csv',
      says: 'does not exist',
    },
    {
      // The input is checked before the report's folder (which is missing too).
      name: 'a file in a folder that does not exist',
      args: ['nothere/x.csv'],
      at: 'nothere/x.csv',
      says: 'the input file does not exist',
    },
  ];

  it('a malformed CSV row is listed with its line, as an invalid record is', async ({ expect }) => {
    const run = await send(['bad-quote-inside.csv']);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('\n  bad-quote-inside.csv:3: malformed CSV: ');
  });

  it.for(cases)('$name', async ({ args, at, says }, { expect }) => {
    const run = await send(args);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    expect(run.stdout).toBe('');
    expect(firstLine(run.stderr)).toMatch(startsWith(`sms-send: ${at}: `));
    expect(run.stderr).toContain(says);
  });
});

describe('a malformed suppression list: exit 2, nothing sent', () => {
  it('names the list, its line and the reason on stderr', async ({ expect }) => {
    const run = await send(['recipients.csv', '--suppress', 'bad-suppress.txt']);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'sms-send: the suppression lists (--suppress) have 1 problem:\n' +
        '  bad-suppress.txt:4: "+47 412 34 56X" not a phone number\n' +
        'Nothing was sent.\n',
    );
  });
});

describe('invalid records: listed on stderr, exit 2, nothing sent', () => {
  it('lists every bad record of bad-records.csv in order, with counts, and sends nothing', async ({
    expect,
  }) => {
    const run = await send(['bad-records.csv']);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    expect(run.stderr).toContain('sms-send: 17 records of 20 cannot be sent:');
    const expected = BAD_RECORDS_PROBLEMS;
    const lines = problemLines(run.stderr);
    expect(lines.map((l) => [l.at, l.field])).toEqual(expected.map(([at, field]) => [at, field]));
    lines.forEach((line, i) => expect(line.reason).toMatch(expected[i]![2]));
    expect(byField(run.stderr)).toEqual(BAD_RECORDS_BY_FIELD);
    expect(run.stderr).toContain('Nothing was sent.');
  });
});

describe('templates', () => {
  it('--text-file template filled from other columns (its final newline dropped)', async ({
    expect,
  }) => {
    const run = await send([
      'mapping.csv',
      '--map',
      'to=Mobil',
      '--text-file',
      'template.txt',
      '--country',
      'NO',
    ]);
    expect(run.code).toBe(0);
    expect(sent(run).map((m) => m.UserData)).toEqual([
      'Hei Kari, koden din er 1234.',
      'Hei Ola, koden din er 5678.',
    ]);
  });
});

describe('--dry-run', () => {
  it('--json with invalid records prints one JSON document on stdout', async ({ expect }) => {
    const run = await send(['bad-one-record.csv', '--dry-run', '--json']);
    expect(run.code).toBe(2);
    expect(run.sim.requests.length).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const doc = JSON.parse(run.stdout) as { plan: { invalid: number } };
    expect(doc.plan.invalid).toBe(1);
  });

  it.for([
    { file: 'bad-header-only.csv', at: 'bad-header-only.csv' },
    { file: 'bad-empty.ndjson', at: 'bad-empty.ndjson' },
  ])('agrees with a real run on $file: exit 2, no records', async ({ file, at }, { expect }) => {
    const run = await send([file, '--dry-run']);
    expect(run.code).toBe(2);
    expect(run.sim.requests.length).toBe(0);
    expect(run.stderr).toContain(`${at}: no records to send`);
  });
});

describe('bad message defaults are one error naming the flag or key, exit 2', () => {
  it('--from ThisIsWayTooLong', async ({ expect }) => {
    const run = await send(['campaign-a.csv', '--from', 'ThisIsWayTooLong']);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    expect(run.stderr).toBe(
      'sms-send: the settings have 1 problem:\n' +
        '  --from "ThisIsWayTooLong": alphanumeric sender "ThisIsWayTooLong" is 16 characters (at most 11)\n' +
        'Nothing was sent.\n',
    );
  });

  it('--price > 0 on the default gateway names --price', async ({ expect }) => {
    const run = await send(['campaign-a.csv', '--price', '100']);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('  '));
    expect(lines).toEqual([
      '  --price: Price 100 needs a short-number gateway (premium is not possible on 99700999)',
    ]);
  });

  it('several bad flags: each named once, no record lines', async ({ expect }) => {
    const run = await send([
      'campaign-a.csv',
      '--gateway',
      'abc',
      '--message-type',
      '1',
      '--dlr-url',
      'not a url',
      '--validity',
      '0s',
      '--category',
      'c'.repeat(33),
    ]);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    const named = run.stderr
      .split('\n')
      .filter((l) => l.startsWith('  '))
      .map((l) => l.trim().split(/[ :]/)[0])
      .sort();
    expect(named).toEqual(['--category', '--dlr-url', '--gateway', '--message-type', '--validity']);
    expect(run.stderr).not.toContain('campaign-a.csv');
  });

  it('a bad default from a config file names the key and the file', async ({ expect }) => {
    const config = join(suite.path, 'bad-defaults.json');
    await writeFile(config, JSON.stringify({ originatorAddress: 'ThisIsWayTooLong' }));
    const run = await send(['campaign-a.csv', '--config', config]);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('  '));
    expect(run.stderr).toContain(`sms-send: ${config} has 1 problem:`);
    expect(lines).toEqual([
      '  originatorAddress: alphanumeric sender "ThisIsWayTooLong" is 16 characters (at most 11)',
    ]);
  });
});

describe('validation catches what the gateway would reject, before anything is sent', () => {
  it('a non-ASCII alphanumeric sender (--from Bjørn)', async ({ expect }) => {
    const run = await send(['campaign-a.csv', '--from', 'Bjørn']);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    expect(run.stderr).toContain('--from');
  });
});
