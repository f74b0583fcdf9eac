// What a new user types in the first hour and must not find a dead end in: help for a subcommand
// asked as `help campaigns show`, --json on a command line that names no command, a report in a
// folder that cannot be written, a file named wrong before an endpoint is set, a dry run of a file
// whose columns are not found, a text column's {name} in single braces, a page asked for with
// --html.
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { injectDiskFault } from '../../src/shared/disk.js';
import { startSimulator } from '../../src/simulator/index.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';

describe('help for a subcommand', () => {
  it.each([
    [['help', 'campaigns', 'show'], 'Usage: sms-send campaigns show'],
    [['help', 'dlr', 'apply'], 'Usage: sms-send dlr apply'],
    [['help', 'campaigns'], 'Usage: sms-send campaigns'],
  ])('sms-send %j prints its help, exit 0', async (args, usage) => {
    const run = await runInProcess(args);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(new RegExp(`^${usage} `));
  });
});

describe('no arguments, and -v', () => {
  it('sms-send with no arguments prints the overview on stdout, exit 0, as gh does', async () => {
    const run = await runInProcess([]);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe('Usage: sms-send [options] [command]');
    expect(run.stdout).toContain('Commands:');
    expect(run.stderr).toBe('');
  });

  it.each([['-V'], ['--version']])('sms-send %s prints the version, exit 0', async (flag) => {
    const run = await runInProcess([flag]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
  });

  it('sms-send -v alone is --verbose without an input: exit 2, pointing to --version', async () => {
    const run = await runInProcess(['-v']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^sms-send: -v is --verbose, for a send: it needs an input \(did you mean (npx )?sms-send --version\?\)\n$/,
    );
  });
});

describe('--json on a command line that names no command', () => {
  it('sms-send sned --json: the error is one JSON document on stdout, exit 2', async () => {
    const run = await runInProcess(['sned', '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        code: 'usage',
        message: "unknown command or input 'sned' (did you mean send?)",
        exitCode: 2,
      },
    });
    expect(run.stderr).toBe('');
  });

  it('a --json after -- is an argument, not the flag', async () => {
    const run = await runInProcess(['sned', '--', '--json']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("unknown command or input 'sned'");
  });
});

describe('a report in a folder that cannot be written', () => {
  afterEach(() => injectDiskFault(undefined));

  it.each([
    [
      'EROFS',
      'read-only file system',
      /cannot be written here \(read-only, or not this user's\): give --report a path in a folder you can write\.$/,
    ],
    [
      'ENOSPC',
      'no space left on device',
      /Make room in .*, or give --report a path on another disk\.$/,
    ],
  ])('%s: exit 2 naming the folder and --report, nothing sent', async (code, words, fix) => {
    const dir = await tempDir();
    const sim = await startSimulator();
    try {
      const input = join(dir.path, 'campaign.csv');
      await writeCampaignCsv(input, 5);
      const report = join(dir.path, 'out', 'campaign.report.csv');
      await mkdir(join(dir.path, 'out'));
      // The report's folder refuses every new file, as a read-only mount (or a full disk) does.
      injectDiskFault((op, path) =>
        op === 'open' && path.startsWith(join(dir.path, 'out'))
          ? { error: Object.assign(new Error(`${code}: ${words}, open '${path}'`), { code }) }
          : undefined,
      );
      const run = await runInProcess([input, '--endpoint', sim.url, '--report', report, '--yes'], {
        env: {
          SMS_SEND_STATE_DIR: join(dir.path, 'state'),
          SMS_SEND_USERNAME: 'u',
          SMS_SEND_PASSWORD: 'p',
        },
      });
      expect(run.code).toBe(2);
      const message = run.stderr.trim().split('\n')[0]!;
      expect(message).toContain(`sms-send: cannot write beside the report ${report}:`);
      expect(message).toContain('nothing was sent.');
      expect(message).toMatch(fix);
      expect(message).not.toContain('state directory');
      expect(sim.ledger).toEqual([]);
    } finally {
      await sim.stop();
      await dir.remove();
    }
  });
});

describe("a text column's {name} in single braces", () => {
  it.each([
    [
      'a column in single braces is refused, naming the file, line and field',
      [],
      'Hi {name} your code',
    ],
    ['another word, with --strict, is refused', ['--strict'], 'Use {ABC} now'],
  ])('%s: exit 2, nothing sent', async (_, flags, text) => {
    const dir = await tempDir();
    const sim = await startSimulator();
    try {
      const input = join(dir.path, 'c.csv');
      await writeFile(input, `name,phone,text\nOla,+4791234567,${text}\n`);
      const run = await runInProcess([input, '--endpoint', sim.url, '--yes', ...flags], {
        env: {
          SMS_SEND_STATE_DIR: join(dir.path, 'state'),
          SMS_SEND_USERNAME: 'u',
          SMS_SEND_PASSWORD: 'p',
        },
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${input}:2: text: the text has {`);
      expect(run.stderr).toContain('write \\{');
      expect(sim.ledger).toEqual([]);
    } finally {
      await sim.stop();
      await dir.remove();
    }
  });
});

describe('the first problem named is the one to fix first', () => {
  it.each([
    [['nonexist.csv'], 'nonexist.csv: the input file does not exist'],
    [['nonexist.csv', '--dry-run'], 'nonexist.csv: the input file does not exist'],
    [['folder'], 'folder: is a directory, not a file'],
  ])(
    'sms-send %j without an endpoint names the input, not the endpoint: exit 2',
    async (args, said) => {
      const dir = await tempDir();
      try {
        await mkdir(join(dir.path, 'folder'));
        const run = await runInProcess(args, {
          cwd: dir.path,
          env: { SMS_SEND_STATE_DIR: join(dir.path, 'state') },
        });
        expect(run.code).toBe(2);
        expect(run.stderr).toBe(`sms-send: ${said}\n`);
        expect(run.stdout).toBe('');
      } finally {
        await dir.remove();
      }
    },
  );

  it('a dry run whose columns are not found prints the error alone, no empty plan', async () => {
    const dir = await tempDir();
    try {
      await writeFile(join(dir.path, 'b.csv'), 'foo,bar\n1,2\n');
      const run = await runInProcess(['b.csv', '--dry-run'], {
        cwd: dir.path,
        env: { SMS_SEND_STATE_DIR: join(dir.path, 'state') },
      });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^sms-send: b\.csv: no recipient column: /);
      expect(run.stderr).toContain('b.csv: no text column: ');
    } finally {
      await dir.remove();
    }
  });

  it('a dry run with invalid records still shows its plan before the error', async () => {
    const dir = await tempDir();
    try {
      await writeFile(join(dir.path, 'c.csv'), 'to,text\nabc,hi\n4741000001,yo\n');
      const run = await runInProcess(['c.csv', '--dry-run'], {
        cwd: dir.path,
        env: { SMS_SEND_STATE_DIR: join(dir.path, 'state') },
      });
      expect(run.code).toBe(2);
      expect(run.stdout).toMatch(/^Plan \(dry run: nothing sent\)\n {2}records +2\n/);
      expect(run.stderr).toContain('1 record of 2 cannot be sent:');
    } finally {
      await dir.remove();
    }
  });
});

describe('send --html', () => {
  it('says where the page was written', async () => {
    const dir = await tempDir();
    try {
      await writeCampaignCsv(join(dir.path, 'campaign.csv'), 3);
      const run = await runInProcess(['campaign.csv', '--simulate', '--html', 'page.html'], {
        cwd: dir.path,
        env: { SMS_SEND_STATE_DIR: join(dir.path, 'state') },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr.split('\n')).toContain('page written: page.html');
      await access(join(dir.path, 'page.html'));
    } finally {
      await dir.remove();
    }
  });
});
