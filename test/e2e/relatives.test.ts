// Never twice, whatever the user changes: the runs of the issue's trials, each followed by the
// command sms-send then prints first, against a gateway of the tests' own that logs every message
// it accepts with its recipient (not the simulator: these are real campaigns, not rehearsals). A
// row fixed in an interrupted campaign, a pilot and then the rest, a move to the state URL, the
// rest sent from another host: no recipient gets the message twice.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collect, killLeft, runCli, startCli, type CliResult } from '../helpers/cli.js';
import { mobile, parseCsv, tempDir } from '../helpers/files.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/reliability.js';
import type { ChildProcess } from 'node:child_process';

let dir: Awaited<ReturnType<typeof tempDir>>;
let gateway: TestGateway;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await tempDir();
  gateway = await startGateway();
});
afterEach(async () => {
  killLeft(children);
  await gateway.close();
  await dir.remove();
});

const server = usePostgres();

/** `count` records, one a recipient; row `bad` (1-based) with a number that is no phone. */
async function writeList(count: number, bad?: number): Promise<void> {
  const lines = ['to,text'];
  for (let row = 1; row <= count; row++) {
    lines.push(`${row === bad ? '47123' : mobile(row)},Hello ${row}`);
  }
  await writeFile(join(dir.path, 'list.csv'), `${lines.join('\n')}\n`);
}

const env = (extra: Record<string, string> = {}) => ({
  SMS_SEND_STATE_DIR: join(dir.path, 'state'),
  SMS_SEND_USERNAME: 'u',
  SMS_SEND_PASSWORD: 'p',
  ...extra,
});

const line = () => ['list.csv', '--endpoint', gateway.url, '--yes', '--batch-size', '10'];

function run(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { cwd: dir.path, env: env(extra) });
}

/** The command a refusal prints first (`… with:`), as argv. */
function firstCommand(stderr: string): string[] {
  const found = / with:\n {2}(?:npx )?sms-send (.+)\n/.exec(stderr);
  expect(found, stderr).not.toBeNull();
  return found![1]!.split(' ').map((word) => word.replace(/^'(.*)'$/, '$1'));
}

describe('a campaign edited after it was interrupted', () => {
  it('one row fixed, then --resume: refused naming the campaign, and its first command sends the rest once', async () => {
    await writeList(1000, 6);
    gateway.latency(20);
    const first = startCli([...line(), '--skip-invalid'], { cwd: dir.path, env: env() });
    children.push(first);
    const stopped = collect(first);
    await waitFor(() => gateway.log.length >= 700, '700 accepted');
    first.kill('SIGINT');
    expect((await stopped).code).toBe(130);
    gateway.latency(0);
    const sent = new Set(gateway.log.map((m) => m.to));
    // The bad number fixed, as the issue's user did with sed.
    const text = await readFile(join(dir.path, 'list.csv'), 'utf8');
    await writeFile(join(dir.path, 'list.csv'), text.replace('47123,', `${mobile(5000)},`));
    for (const again of [
      [...line(), '--skip-invalid', '--resume'],
      [...line(), '--skip-invalid'],
    ]) {
      const refused = await run(again);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(/campaign \w+ \(interrupted, [\d-]+: [\d,]+ accepted/);
      expect(refused.stderr).toMatch(/list\.csv changed since/);
      expect(refused.stderr).toContain(`${sent.size} records of this one go to recipients`);
      expect(refused.stderr).toMatch(/--force sends all 1,000, [\d,]+ of them to recipients/);
      expect(firstCommand(refused.stderr)).toContain('--skip-sent-by');
    }
    const refused = await run([...line(), '--skip-invalid', '--resume']);
    const rest = await run(firstCommand(refused.stderr));
    expect(rest.code, rest.stderr).toBe(0);
    expect(gateway.twice()).toEqual([]);
    expect(new Set(gateway.log.map((m) => m.to)).size).toBe(1000);
    expect(rest.stdout + rest.stderr).toMatch(
      /the report list\.report\.csv was campaign \w+'s: it is kept as/,
    );
  }, 60_000);
});

describe('a pilot, then the rest', () => {
  it('--limit 50, then the full line: refused, and its first command sends the other 250 once', async () => {
    await writeList(300);
    expect((await run([...line(), '--limit', '50'])).code).toBe(0);
    const full = await run(line());
    expect(full.code, full.stderr).toBe(2);
    expect(full.stderr).toMatch(/was sent on [\d-]+ with --limit 50: 50 accepted, 250 skipped/);
    const rest = await run(firstCommand(full.stderr));
    expect(rest.code, rest.stderr).toBe(0);
    expect(gateway.log).toHaveLength(300);
    expect(gateway.twice()).toEqual([]);
  });

  it('--resume with another --limit takes the campaign on to it, then to the end; nothing twice', async () => {
    await writeList(300);
    expect((await run([...line(), '--limit', '50'])).code).toBe(0);
    const more = await run([...line(), '--resume', '--limit', '100']);
    expect(more.code, more.stderr).toBe(0);
    expect(gateway.log).toHaveLength(100);
    const all = await run([...line(), '--resume']);
    expect(all.code, all.stderr).toBe(0);
    expect(gateway.log).toHaveLength(300);
    expect(gateway.twice()).toEqual([]);
    const rows = parseCsv(await readFile(join(dir.path, 'list.report.csv'), 'utf8'));
    expect(rows.filter((r) => r['outcome'] === 'accepted')).toHaveLength(300);
  });
});

describe('moving to the state URL', () => {
  it('the same line with --state-url names the campaign of this host, and sends nothing twice', async () => {
    await writeList(300);
    expect((await run(line())).code).toBe(0);
    const stateUrl = await server.database();
    // A report named by the day: no report is in the way.
    const moved = await run([...line(), '--report', 'r-{date}.csv'], {
      SMS_SEND_STATE_URL: stateUrl,
    });
    expect(moved.code, moved.stderr).toBe(2);
    expect(moved.stderr).toMatch(/is this very content, recorded in .*state/);
    expect(moved.stderr).toMatch(/--force sends all 300, 300 of them/);
    const rest = await run(firstCommand(moved.stderr), { SMS_SEND_STATE_URL: stateUrl });
    expect(rest.code, rest.stderr).toBe(0);
    expect(gateway.log).toHaveLength(300);
  });
});

describe('two hosts, one state URL', () => {
  it('host B sends the rest of a campaign host A stopped, after A content was edited: nothing twice', async () => {
    const stateUrl = await server.database();
    await writeList(400, 3);
    gateway.latency(20);
    const onA = startCli([...line(), '--skip-invalid', '--report', 'a.csv', '--lease', '2s'], {
      cwd: dir.path,
      env: env({ SMS_SEND_STATE_URL: stateUrl, SMS_SEND_STATE_DIR: join(dir.path, 'a') }),
      host: 'host-a',
    });
    children.push(onA);
    const ended = collect(onA);
    await waitFor(() => gateway.log.length >= 200, '200 accepted');
    onA.kill('SIGKILL');
    await ended;
    gateway.latency(0);
    const text = await readFile(join(dir.path, 'list.csv'), 'utf8');
    await writeFile(join(dir.path, 'list.csv'), text.replace('47123,', `${mobile(9000)},`));
    const bArgs = { cwd: dir.path, host: 'host-b' };
    const bEnv = env({ SMS_SEND_STATE_URL: stateUrl, SMS_SEND_STATE_DIR: join(dir.path, 'b') });
    const listed = await collect(startCli(['campaigns', '--json'], { ...bArgs, env: bEnv }));
    const [a] = (JSON.parse(listed.stdout) as { campaigns: { id: string }[] }).campaigns;
    let rest: CliResult;
    do {
      // A's lease runs out first: until then B is refused, exit 4.
      rest = await collect(
        startCli([...line(), '--skip-invalid', '--report', 'b.csv', '--skip-sent-by', a!.id], {
          ...bArgs,
          env: bEnv,
        }),
      );
    } while (rest.code === 4 && (await new Promise((r) => setTimeout(r, 500)), true));
    expect(rest.code, rest.stderr).toBe(0);
    expect(gateway.twice()).toEqual([]);
    // A batch of A's in flight at the kill may or may not have reached the gateway: B leaves it
    // out either way (never twice), and its report says so, as sent by A. Everyone else got it.
    const reached = new Set(gateway.log.map((m) => m.to));
    const rows = parseCsv(await readFile(join(dir.path, 'b.csv'), 'utf8'));
    const unreached = rows.filter((r) => !reached.has(r['to']!));
    for (const row of unreached) {
      expect(row, 'left out by B as sent by A').toMatchObject({
        outcome: 'skipped',
        error: `sent by campaign ${a!.id}`,
      });
    }
    // At most what A had in flight: its batches of 10 at its concurrency.
    expect(unreached.length).toBeLessThanOrEqual(10 * 4);
    expect(reached.size + unreached.length).toBe(400);
  }, 90_000);
});

describe('a nightly list at the same path', () => {
  it("tonight's other content is sent as its own campaign, and last night's is named", async () => {
    await writeList(30);
    expect((await run([...line(), '--report', 'mon.csv'])).code).toBe(0);
    const lines = [
      'to,text',
      ...Array.from({ length: 30 }, (_v, i) => `${mobile(i + 1)},Bye ${i}`),
    ];
    await writeFile(join(dir.path, 'list.csv'), `${lines.join('\n')}\n`);
    const tonight = await run([...line(), '--report', 'tue.csv']);
    expect(tonight.code, tonight.stderr).toBe(0);
    expect(tonight.stderr).toMatch(
      /note: campaign \w+ \(finished [\d-]+: 30 accepted of 30\) read the same input/,
    );
    expect(gateway.log).toHaveLength(60);
  });
});

describe('a report is never an input', () => {
  it('--report naming the input is refused, with or without --force, and the input is unchanged', async () => {
    await writeList(20);
    const before = await readFile(join(dir.path, 'list.csv'));
    for (const extra of [[], ['--force']]) {
      const refused = await run([...line(), '--report', 'list.csv', ...extra]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(/the report list\.csv is the input list\.csv/);
      expect(refused.stderr).not.toMatch(/--force/);
      expect(await readFile(join(dir.path, 'list.csv'))).toEqual(before);
    }
    expect(gateway.log).toHaveLength(0);
  });

  it('--force never replaces a file that is not a report', async () => {
    await writeList(20);
    await writeFile(join(dir.path, 'notes.csv'), 'name,phone\nOla,123\n');
    const refused = await run([...line(), '--report', 'notes.csv', '--force']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/notes\.csv is not a report/);
    expect(await readFile(join(dir.path, 'notes.csv'), 'utf8')).toBe('name,phone\nOla,123\n');
  });
});

describe('a report another campaign owns, after --force', () => {
  it('is set aside, and `report ID` of that campaign reads its own rows', async () => {
    await writeList(100);
    expect((await run([...line(), '--limit', '30'])).code).toBe(0);
    const listed = JSON.parse((await run(['campaigns', '--json'])).stdout) as {
      campaigns: { id: string }[];
    };
    const old = listed.campaigns[0]!.id;
    await writeList(100, 100);
    const forced = await run([...line(), '--skip-invalid', '--force']);
    expect(forced.code, forced.stderr).toBe(1);
    expect(forced.stderr + forced.stdout).toMatch(
      /was campaign \w+'s: it is kept as .*list\.\w+\.report\.csv/,
    );
    const report = await run(['report', old, '--json']);
    expect(report.code, report.stderr).toBe(0);
    const counts = JSON.parse(report.stdout) as { report: { byOutcome: Record<string, number> } };
    expect(counts.report.byOutcome).toMatchObject({ accepted: 30, skipped: 70 });
  });
});
