// Never twice, whatever the user changes, in-process: each trial runs the commands a user would
// (the first command a refusal prints among them) against a gateway of the tests' own that logs
// every message it accepts with its recipient. That log, not what sms-send says, is the witness:
// no recipient gets the campaign's message twice, and whoever was left out is sent to once.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { mobile, tempDir } from '../helpers/files.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { runInProcess } from '../helpers/in-process.js';
import { usePostgres } from '../helpers/postgres.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let gateway: TestGateway;
beforeEach(async () => {
  dir = await tempDir();
  gateway = await startGateway();
});
afterEach(async () => {
  await gateway.close();
  await dir.remove();
});

/** `count` records at `file`, one a recipient; `texts` replaces the text of rows (1-based). */
async function writeList(
  count: number,
  texts: Record<number, string> = {},
  file = 'list.csv',
): Promise<void> {
  const lines = ['to,text'];
  for (let row = 1; row <= count; row++)
    lines.push(`${mobile(row)},${texts[row] ?? `Hello ${row}`}`);
  await writeFile(join(dir.path, file), `${lines.join('\n')}\n`);
}

const env = (extra: Record<string, string> = {}) => ({
  SMS_SEND_STATE_DIR: join(dir.path, 'state'),
  SMS_SEND_USERNAME: 'u',
  SMS_SEND_PASSWORD: 'p',
  ...extra,
});

const line = (file = 'list.csv') => [
  file,
  ...['--endpoint', gateway.url, '--yes', '--batch-size', '10', '--concurrency', '1'],
];

/** Stops where the gateway stops answering: exit 3, the campaign stopped (unfinished). */
const stopping = ['--retries', '0', '--outage-grace', '0'];

function run(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  return runInProcess(args, { cwd: dir.path, env: env(extra) });
}

/** The command a refusal prints first (`… with:`), as argv. */
function firstCommand(stderr: string): string[] {
  const found = / with:\n {2}(?:npx )?sms-send (.+)\n/.exec(stderr);
  expect(found, stderr).not.toBeNull();
  return found![1]!.split(' ').map((word) => word.replace(/^'(.*)'$/, '$1'));
}

/** The ID of the campaign listed first (the newest). */
async function newest(extra: Record<string, string> = {}): Promise<string> {
  const listed = await run(['campaigns', '--json'], extra);
  return (JSON.parse(listed.stdout) as { campaigns: { id: string }[] }).campaigns[0]!.id;
}

/** Recipients the gateway got, each once. */
const reached = () => new Set(gateway.log.map((m) => m.to)).size;

describe('a chain of campaigns (--skip-sent-by of a --skip-sent-by)', () => {
  it('a pilot, the rest as its own campaign, then a row fixed: the printed command sends nobody the message twice', async () => {
    await writeList(300);
    expect((await run([...line(), '--limit', '50'])).code).toBe(0);
    const full = await run(line());
    expect(full.code, full.stderr).toBe(2);
    const rest = await run(firstCommand(full.stderr));
    expect(rest.code, rest.stderr).toBe(0);
    expect(gateway.log).toHaveLength(300);
    await writeList(300, { 17: 'Hello again' });
    const fixed = await run(line());
    expect(fixed.code, fixed.stderr).toBe(2);
    // Every recipient had a message from the pilot or its rest: all 300 are counted.
    expect(fixed.stderr).toContain('300 records of this one go to recipients');
    const again = await run(firstCommand(fixed.stderr));
    expect(again.code, again.stderr).toBe(0);
    expect(gateway.twice()).toEqual([]);
    expect(gateway.log).toHaveLength(300);
  });

  it('--skip-sent-by the rest leaves out the campaign it left out', async () => {
    await writeList(300);
    expect((await run([...line(), '--limit', '50'])).code).toBe(0);
    const pilot = await newest();
    expect((await run([...line(), '--skip-sent-by', pilot])).code).toBe(0);
    const rest = await newest();
    await writeList(300, { 17: 'Hello again' });
    const again = await run([...line(), '--report', 'again.csv', '--skip-sent-by', rest]);
    expect(again.code, again.stderr).toBe(0);
    expect(gateway.twice()).toEqual([]);
    expect(reached()).toBe(300);
  });
});

describe('a campaign whose rest another one sent', () => {
  it('is not continued once that one is pruned: its --resume is refused, nobody gets it twice', async () => {
    await writeList(600);
    gateway.refuseFrom(200);
    const stopped = await run([...line(), ...stopping]);
    expect(stopped.code, stopped.stderr).toBe(3);
    gateway.refuseFrom(undefined);
    const x = await newest();
    const rest = await run([...line(), '--skip-sent-by', x]);
    expect(rest.code, rest.stderr).toBe(0);
    expect(reached()).toBe(600);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const pruned = await run(['campaigns', 'prune', '--older-than', '1s']);
    expect(pruned.code, pruned.stderr).toBe(0);
    for (const again of [
      [...line(), '--resume'],
      [...line(), '--once'],
    ]) {
      const refused = await run(again);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(/sent the rest of its content/);
    }
    expect(gateway.twice()).toEqual([]);
    expect(gateway.log).toHaveLength(600);
  });
});

describe('a campaign whose rest another one sent, in the other store', () => {
  const server = usePostgres();

  it('stopped in the state directory, its rest sent with the state URL: its own --resume is refused', async () => {
    await writeList(600);
    gateway.refuseFrom(200);
    const stopped = await run([...line(), ...stopping]);
    expect(stopped.code, stopped.stderr).toBe(3);
    gateway.refuseFrom(undefined);
    const stateUrl = await server.database();
    const moved = await run(line(), { SMS_SEND_STATE_URL: stateUrl });
    expect(moved.code, moved.stderr).toBe(2);
    const rest = await run(firstCommand(moved.stderr), { SMS_SEND_STATE_URL: stateUrl });
    expect(rest.code, rest.stderr).toBe(0);
    expect(reached()).toBe(600);
    // The command the stop printed, run where it was printed: without the state URL.
    const resumed = await run(firstCommand(stopped.stderr));
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toMatch(/sent the rest of its content/);
    expect(gateway.twice()).toEqual([]);
    expect(gateway.log).toHaveLength(600);
  }, 60_000);
});

describe('a nightly job at one path', () => {
  it("last night's report moved away, tonight's other content is sent as its own campaign", async () => {
    await writeList(200);
    const night1 = await run(line());
    expect(night1.code, night1.stderr).toBe(0);
    await rename(join(dir.path, 'list.report.csv'), join(dir.path, 'night1.csv'));
    await writeList(200, Object.fromEntries([...Array(200).keys()].map((i) => [i + 1, 'Tonight'])));
    const night2 = await run(line());
    expect(night2.code, night2.stderr).toBe(0);
    expect(night2.stderr).not.toMatch(/report-exists|already exists/);
    expect(gateway.log).toHaveLength(400);
  });
});

describe('a relative whose journal does not name its recipients', () => {
  it('is a refusal that cannot count them, not a relative sending nothing again', async () => {
    await writeList(300);
    gateway.refuseFrom(100);
    const stopped = await run([...line(), ...stopping]);
    expect(stopped.code, stopped.stderr).toBe(3);
    gateway.refuseFrom(undefined);
    const journal = join(dir.path, 'state', 'campaigns', await newest(), 'journal.ndjson');
    const lines = (await readFile(journal, 'utf8')).replace(/,"to":"[^"]*"/g, '');
    await writeFile(journal, lines);
    await writeList(300, { 250: 'Fixed' });
    const refused = await run(line());
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /may have sent 100 records whose recipients its journal does not name/,
    );
    expect(gateway.log).toHaveLength(100);
  });
});

describe('--skip-sent-by a rehearsal', () => {
  it('is refused for a run that reaches phones: a simulator reached nobody', async () => {
    await writeList(50);
    const rehearsed = await run([...line(), '--simulate', '--report', 'rehearsal.csv']);
    expect(rehearsed.code, rehearsed.stderr).toBe(0);
    const id = await newest();
    const refused = await run([...line(), '--skip-sent-by', id]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/names a rehearsal \(sent to a simulator only\)/);
    expect(gateway.log).toHaveLength(0);
  });
});
