// An unfinished campaign keeps its complete spool, stamped with what its messages were built
// from: a --resume that would build the same messages sends from it without validating again;
// any change of what they are built from, or a validity counted from now, validates afresh.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InterruptedError,
  SendEmitter,
  send,
  startSimulator,
  type Simulator,
} from '../../src/index.js';
import { RowBits } from '../../src/campaign/steps/row-bits.js';
import { mobile, parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { folderState } from '../helpers/state.js';
import { readFile, writeFile } from 'node:fs/promises';

const CREDENTIALS = { username: 'kept-user', password: 'kept-secret' };
const RECORDS = 40;

let sim: Simulator;
let dir: { path: string; remove: () => Promise<void> };
let input: string;
let runs = 0;

beforeAll(async () => {
  sim = await startSimulator({ credentials: CREDENTIALS });
  dir = await tempDir();
  input = join(dir.path, 'kept.csv');
  await writeCampaignCsv(input, RECORDS);
});

afterAll(async () => {
  await sim.stop();
  await dir.remove();
});

type Extra = Record<string, unknown>;

/** A run of the campaign in its own state folder; `stopAfter`: stopped after that many batches. */
async function run(state: string, extra: Extra, options: { resume?: boolean; stopAfter?: number }) {
  const events = new SendEmitter();
  let validated = 0;
  events.on('validated', () => validated++);
  const controller = new AbortController();
  let batches = 0;
  events.on('batch', () => {
    if (++batches === options.stopAfter) controller.abort();
  });
  const before = sim.ledger.length;
  const report = join(dir.path, `report-${++runs}.csv`);
  const settings = {
    endpoint: sim.url,
    ...CREDENTIALS,
    stateDir: state,
    batchSize: 5,
    concurrency: 1,
    ...extra,
  };
  const ended = await send({
    inputs: [input],
    settings,
    report,
    resume: options.resume,
    events,
    signal: controller.signal,
  }).catch((error: unknown) => error);
  return { ended, validated, sent: sim.ledger.length - before, report };
}

/** A campaign stopped after two batches (10 records sent), as Ctrl-C leaves it. */
async function interrupted(name: string, extra: Extra = {}) {
  const state = join(dir.path, name);
  const first = await run(state, extra, { stopAfter: 2 });
  expect(first.ended).toBeInstanceOf(InterruptedError);
  expect(first.validated).toBeGreaterThan(0);
  const [id] = await (await import('node:fs/promises')).readdir(join(state, 'campaigns'));
  return { state, paths: folderState(state).cache.files(id!), sentFirst: first.sent };
}

describe('the spool an unfinished campaign keeps', () => {
  it('--resume sends from it without validating again, each record once, and it goes when the campaign is finished', async () => {
    const { state, paths, sentFirst } = await interrupted('plain');
    expect(existsSync(paths.spool) && existsSync(paths.spoolStamp)).toBe(true);
    const resumed = await run(state, {}, { resume: true });
    expect(resumed.validated).toBe(0);
    expect(resumed.ended).toMatchObject({ summary: { byOutcome: { accepted: RECORDS } } });
    expect(sentFirst + resumed.sent).toBe(RECORDS);
    const rows = parseCsv(await readFile(resumed.report, 'utf8'));
    expect(rows.map((r) => Number(r.row)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: RECORDS }, (_v, i) => i + 1),
    );
    expect(existsSync(paths.spool) || existsSync(paths.spoolStamp)).toBe(false);
  });

  it.each([
    ['strict', { strict: true }],
    ['maxSegments', { maxSegments: 3 }],
    ['batchSize', { batchSize: 4 }],
  ])('a resume with another %s validates again', async (name, changed) => {
    const { state, sentFirst } = await interrupted(`changed-${name}`);
    const resumed = await run(state, changed, { resume: true });
    expect(resumed.validated).toBeGreaterThan(0);
    expect(sentFirst + resumed.sent).toBe(RECORDS);
  });

  it('a resume after its suppression list changed validates again', async () => {
    const list = join(dir.path, 'optouts.txt');
    await writeFile(list, '4740000001\n');
    const { state, sentFirst } = await interrupted('list', { suppress: [list] });
    await writeFile(list, '4740000002\n');
    const resumed = await run(state, { suppress: [list] }, { resume: true });
    expect(resumed.validated).toBeGreaterThan(0);
    expect(sentFirst + resumed.sent).toBe(RECORDS);
  });

  it('is not kept when a message carries a validity counted from now', async () => {
    const { state, paths, sentFirst } = await interrupted('timed', { validationPeriod: '2h' });
    expect(existsSync(paths.spoolStamp) || existsSync(paths.spool)).toBe(false);
    const resumed = await run(state, { validationPeriod: '2h' }, { resume: true });
    expect(resumed.validated).toBeGreaterThan(0);
    expect(sentFirst + resumed.sent).toBe(RECORDS);
  });

  it('a stamp that does not match the spool on disk is not trusted', async () => {
    const { state, paths, sentFirst } = await interrupted('short');
    const { truncate } = await import('node:fs/promises');
    await truncate(paths.spool, 10);
    const resumed = await run(state, {}, { resume: true });
    expect(resumed.validated).toBeGreaterThan(0);
    expect(sentFirst + resumed.sent).toBe(RECORDS);
  });

  it.each([
    ['of version 1 (no message rows)', (stamp: Extra) => ({ ...stamp, v: 1, messages: undefined })],
    [
      'of version 2 without its message rows',
      (stamp: Extra) => ({ ...stamp, messages: undefined }),
    ],
  ])('a stamp %s is not trusted: the resume validates again', async (_what, change) => {
    const { state, paths, sentFirst } = await interrupted(`stamp-${runs}`);
    const stamp = JSON.parse(await readFile(paths.spoolStamp, 'utf8')) as Extra;
    await writeFile(paths.spoolStamp, JSON.stringify(change(stamp)));
    const resumed = await run(state, {}, { resume: true });
    expect(resumed.validated).toBeGreaterThan(0);
    expect(sentFirst + resumed.sent).toBe(RECORDS);
  });
});

describe('the stamp', () => {
  it('names the rows of the spooled messages, without the records not sent', async () => {
    const list = join(dir.path, 'optouts-rows.txt');
    // The fifth record's number (rows count from 1).
    await writeFile(list, `${mobile(4)}\n`);
    const { paths } = await interrupted('rows', { suppress: [list] });
    const stamp = JSON.parse(await readFile(paths.spoolStamp, 'utf8')) as { messages: string };
    const messages = RowBits.fromBase64(stamp.messages);
    const rows = Array.from({ length: RECORDS + 2 }, (_v, row) => row).filter((row) =>
      messages.has(row),
    );
    expect(rows).toEqual(Array.from({ length: RECORDS }, (_v, i) => i + 1).filter((r) => r !== 5));
  });
});
