// Suppression lists through the send command's pipeline against the in-process simulator: a
// suppressed recipient never reaches it (its ledger shows), not even on --resume, and is reported
// `skipped` with the list's name. test/message/suppress.test.ts tables the list parsing.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignRun, inputFiles } from '../../src/campaign/run.js';
import { flagLayer } from '../../src/cli/gateway-settings.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { sendCampaign } from '../../src/campaign/steps/index.js';
import { SendEmitter } from '../../src/send/events.js';
import { startSimulator } from '../../src/simulator/index.js';
import { mobile, parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { parseSendArgs, runPipeline, type PipelineRun } from '../helpers/pipeline.js';

const RECORDS = 10;
/** Rows (0-based records) whose recipients opted out, and the list that names each. */
const OPTED_OUT = new Map([
  [1, 'optouts.csv'],
  [4, 'optouts.csv'],
  [7, 'national.txt'],
]);
const SENT = Array.from({ length: RECORDS }, (_, i) => i).filter((i) => !OPTED_OUT.has(i));

let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  dir = await tempDir();
  await writeCampaignCsv(join(dir.path, 'campaign.csv'), RECORDS);
  // The same numbers written as people write them: +47 with spaces, 0047, national digits.
  await writeFile(
    join(dir.path, 'optouts.csv'),
    `name,Phone,date\nKari,+47 ${mobile(1).slice(2)},2024-01-02\nOla,00${mobile(4)},2024-02-03\nStranger,+4799999999,\n`,
  );
  await writeFile(
    join(dir.path, 'national.txt'),
    `# unsubscribed by SMS\n\n${mobile(7).slice(2)}\n${mobile(1).slice(2)} # also on optouts.csv\n`,
  );
  await writeFile(join(dir.path, 'broken.txt'), `${mobile(2)}\n${mobile(3)}x\n`);
});
afterAll(async () => {
  await dir.remove();
});

function send(args: string[]): Promise<PipelineRun> {
  return runPipeline(['campaign.csv', ...args], { cwd: dir.path, workDir: dir.path });
}

const LISTS = ['--suppress', 'optouts.csv', '--suppress', 'national.txt', '--country', 'NO'];

describe('--suppress', () => {
  it('suppressed recipients never reach the simulator and are reported skipped, by list', async () => {
    const run = await send(LISTS);
    expect(run.code).toBe(0);
    expect(run.messages.map((m) => String(m.DestinationAddress))).toEqual(SENT.map(mobile));
    expect(run.rows.map((r) => [r.to, r.outcome, r.error, r.attempts])).toEqual(
      Array.from({ length: RECORDS }, (_, i) =>
        OPTED_OUT.has(i)
          ? [mobile(i), 'skipped', `suppressed (${OPTED_OUT.get(i)})`, '0']
          : [mobile(i), 'accepted', '', '1'],
      ),
    );
    expect(run.planJson).toMatchObject({
      records: RECORDS,
      valid: SENT.length,
      skipped: OPTED_OUT.size,
      suppressed: OPTED_OUT.size,
      suppressedByList: { 'optouts.csv': 2, 'national.txt': 1 },
    });
    expect(run.planText).toContain('suppressed  3 (optouts.csv 2, national.txt 1)');
  });

  it('the lists are no part of the campaign: they only leave recipients out, so its ID stays', async () => {
    const without = await send(['--dry-run', '--country', 'NO']);
    const withLists = await send([...LISTS, '--dry-run']);
    const reordered = await send([
      '--suppress',
      'national.txt',
      '--suppress',
      'optouts.csv',
      '--country',
      'NO',
      '--dry-run',
    ]);
    expect(withLists.planJson!.campaign).toBe(without.planJson!.campaign);
    expect(reordered.planJson!.campaign).toBe(withLists.planJson!.campaign);
  });

  it("a config file's lists are read beside it, and a --suppress flag adds to them", async () => {
    const configDir = join(dir.path, 'conf');
    await mkdir(join(configDir, 'lists'), { recursive: true });
    await writeFile(join(configDir, 'lists', 'config-list.txt'), `+${mobile(0)}\n`);
    await writeFile(
      join(configDir, 'sms-send.json'),
      JSON.stringify({ suppress: ['lists/config-list.txt'], country: 'NO' }),
    );
    const run = await send(['--config', 'conf/sms-send.json', '--suppress', 'national.txt']);
    expect(run.code).toBe(0);
    expect(run.rows.filter((r) => r.outcome === 'skipped').map((r) => [r.to, r.error])).toEqual([
      [mobile(0), 'suppressed (config-list.txt)'],
      [mobile(1), 'suppressed (national.txt)'],
      [mobile(7), 'suppressed (national.txt)'],
    ]);
    expect(run.messages).toHaveLength(RECORDS - 3);
  });

  it('a malformed list stops the run before anything is sent (exit 2), naming file and line', async () => {
    const run = await send(['--suppress', 'optouts.csv', '--suppress', 'broken.txt']);
    expect(run.code).toBe(2);
    expect(run.requests).toHaveLength(0);
    expect(run.error).toContain(`broken.txt:2: "${mobile(3)}x" not a phone number`);
  });

  it('--resume of an interrupted run sends the rest, never a suppressed recipient, with the lists as they read now', async () => {
    const sim = await startSimulator();
    const work = join(dir.path, 'resume');
    await mkdir(work, { recursive: true });
    const report = join(work, 'report.csv');
    const run = async (extra: string[], stopAfterFirstBatch: boolean) => {
      const { inputs, flags } = await parseSendArgs([
        'campaign.csv',
        ...LISTS,
        '--batch-size',
        '2',
        '--concurrency',
        '1',
        '--report',
        report,
        '--endpoint',
        sim.url,
        ...extra,
      ]);
      const settings = await resolveSettings({
        cwd: dir.path,
        env: {
          SMS_SEND_STATE_DIR: join(work, 'state'),
          SMS_SEND_USERNAME: 'tester',
          SMS_SEND_PASSWORD: 'not-a-secret',
        },
        flags: flagLayer(flags),
      });
      const events = new SendEmitter();
      const stop = new AbortController();
      if (stopAfterFirstBatch) events.on('batch', () => stop.abort());
      const sent = await sendCampaign(
        campaignRun({
          inputs: inputFiles(inputs, { cwd: dir.path }),
          settings,
          choices: flags,
          io: { events, stop: stop.signal },
        }),
      );
      return sent.result;
    };
    // Overnight, one recipient the first run reached and one it did not opt out.
    const [reached, notYet] = [SENT[0]!, SENT.at(-1)!];
    try {
      const first = await run([], true);
      expect(first.send.interrupted || first.send.stopped !== undefined).toBe(true);
      expect(sim.ledger.length).toBeLessThan(SENT.length);
      await writeFile(join(dir.path, 'late.txt'), `${mobile(reached)}\n${mobile(notYet)}\n`);
      // A list that changed is no other campaign: the resume goes on with the lists as they read.
      const second = await run(['--resume', '--suppress', 'late.txt'], false);
      expect(second.exitCode).toBe(0);
    } finally {
      await sim.stop();
    }
    // Each recipient not on a list exactly once over both runs; none on a list, ever.
    expect(sim.ledger.map((e) => String(e.message.DestinationAddress)).sort()).toEqual(
      SENT.filter((i) => i !== notYet).map(mobile),
    );
    const rows = parseCsv(await readFile(report, 'utf8')).sort(
      (a, b) => Number(a.row) - Number(b.row),
    );
    expect(rows.filter((r) => r.outcome === 'skipped').map((r) => r.error)).toEqual([
      'suppressed (optouts.csv)',
      'suppressed (optouts.csv)',
      'suppressed (national.txt)',
      'suppressed (late.txt)',
    ]);
    // The one the first run reached is reported as it was sent: accepted, once.
    expect(rows.filter((r) => r.to === mobile(reached)).map((r) => r.outcome)).toEqual([
      'accepted',
    ]);
    expect(rows.filter((r) => r.outcome === 'accepted')).toHaveLength(SENT.length - 1);
  });
});
