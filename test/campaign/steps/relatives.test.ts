// A campaign's relatives: which recorded campaigns of other content are named (the same input
// path, the report in the way), which of them are counted against this content, and the refusal
// that says how many recipients may get the message twice.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { identify, type Identified } from '../../../src/campaign/steps/identify.js';
import {
  findRelatives,
  mayRepeat,
  readRelatives,
  relativeNotes,
  relativesRefusal,
  type Relative,
} from '../../../src/campaign/steps/relatives.js';
import { Recorded } from '../../../src/campaign/steps/skip-sent.js';
import type { CampaignChoices, CampaignRun } from '../../../src/campaign/run.js';
import { mobile } from '../../helpers/files.js';
import {
  sendRun,
  stepRun,
  writeList,
  type StepRunOptions,
  StepFolder,
} from '../../helpers/step-run.js';

const folder = new StepFolder(6);

const send = (options: StepRunOptions = {}) =>
  sendRun(folder.dir.path, folder.gateway.url, options);
const path = (name: string) => join(folder.dir.path, name);

/** The run of this content, identified. */
async function identified(
  options: StepRunOptions = {},
): Promise<{ run: CampaignRun; identified: Identified }> {
  const run = await stepRun(folder.dir.path, folder.gateway.url, options);
  folder.open.push(run);
  return { run, identified: await identify(run) };
}

/** The relatives findRelatives finds for this content, read afresh. */
async function relativesOf(options: StepRunOptions = {}): Promise<Relative[]> {
  const { run, identified: i } = await identified(options);
  return findRelatives(run, i.identity, i.reportPath, i.skipping, new Recorded(run));
}

/** The ID of the newest campaign recorded. */
async function newest(): Promise<string> {
  const { run } = await identified();
  return (await run.store.campaigns())[0]!.manifest.id;
}

/** Row 2 fixed: the same list at the same path is other content now. */
const fixRow = () => writeList(folder.dir.path, 6, { 2: 'Fixed' });

describe('findRelatives', () => {
  type Found = { inputs: string[]; report: boolean; sameContent: boolean }[];
  it.each<[string, () => Promise<unknown>, StepRunOptions, () => Found]>([
    [
      'read the same input and wrote the report, which is there',
      () => send().then(fixRow),
      {},
      () => [{ inputs: [path('list.csv')], report: true, sameContent: false }],
    ],
    [
      'read the same input; its report moved away',
      () =>
        send()
          .then(fixRow)
          .then(() => rm(path('report.csv'))),
      {},
      () => [{ inputs: [path('list.csv')], report: false, sameContent: false }],
    ],
    [
      'read another input and wrote this report',
      () => writeList(folder.dir.path, 3, {}, 'b.csv').then(() => send({ inputs: ['b.csv'] })),
      {},
      () => [{ inputs: [], report: true, sameContent: false }],
    ],
    [
      'read another input and wrote another report',
      () => writeList(folder.dir.path, 3, {}, 'b.csv').then(() => send({ inputs: ['b.csv'] })),
      { choices: { report: 'mine.csv' } },
      () => [],
    ],
    ['is this very content', () => send(), { choices: { force: true } }, () => []],
    [
      'is a rehearsal (its messages reached nobody)',
      () => send({ choices: { simulate: true } }).then(fixRow),
      {},
      () => [],
    ],
  ])('a campaign that %s', async (_what, before, options, expected) => {
    await before();
    const found = await relativesOf(options);
    expect(
      found.map(({ inputs, report, sameContent }) => ({ inputs, report, sameContent })),
    ).toEqual(expected());
  });

  it('leaves out the campaign --skip-sent-by names and every one linked to it', async () => {
    await send({ choices: { limit: 2 } });
    const pilot = await newest();
    await send({ choices: { skipSentBy: [pilot], report: 'rest.csv' } });
    const rest = await newest();
    await fixRow();
    // Named: the pilot and the rest both read this path, and the rest wrote another report.
    expect((await relativesOf()).map((r) => r.entry.manifest.id).sort()).toEqual(
      [pilot, rest].sort(),
    );
    // The rest named, the pilot it is linked to goes too.
    expect(await relativesOf({ choices: { skipSentBy: [rest] } })).toEqual([]);
  });
});

describe('mayRepeat: whether a relative is counted against this content', () => {
  it.each([
    [false, false, 'finished', false],
    [true, false, 'finished', true],
    [false, true, 'finished', true],
    [false, false, 'stopped', true],
    [false, false, 'interrupted', true],
  ])('report %s, same content %s, %s: %s', (report, sameContent, status, expected) => {
    const relative = { report, sameContent, entry: { status } } as unknown as Relative;
    expect(mayRepeat(relative)).toBe(expected);
  });
});

describe('readRelatives and relativeNotes', () => {
  it('a finished relative that only read the same path is named in a note, not counted', async () => {
    await send();
    const id = await newest();
    await fixRow();
    await rm(path('report.csv'));
    const { run, identified: i } = await identified();
    const options = { own: i.identity.id, real: true, force: false };
    expect(await readRelatives(i.relatives, false, new Recorded(run), options)).toEqual([]);
    const notes = relativeNotes(i.relatives);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      new RegExp(
        `^note: campaign ${id} \\(finished \\d{4}-\\d\\d-\\d\\d: 6 accepted of 6\\) read the same input`,
      ),
    );
    expect(notes[0]).toContain(`--skip-sent-by ${id} would leave out whom it sent to`);
    // --resume found no run of this content: every relative is counted.
    const counted = await readRelatives(i.relatives, true, new Recorded(run), options);
    expect(counted.map((s) => [s.id, s.numbers.length])).toEqual([[id, 6]]);
  });

  it('counts whom a relative in the way accepted, as numbers; no note', async () => {
    await send({ choices: { limit: 3 } });
    const id = await newest();
    await fixRow();
    const { run, identified: i } = await identified();
    const options = { own: i.identity.id, real: true, force: false };
    const counted = await readRelatives(i.relatives, false, new Recorded(run), options);
    expect(counted).toEqual([
      { id, numbers: Float64Array.from([1, 2, 3].map((r) => Number(mobile(r)))), linked: [] },
    ]);
    expect(relativeNotes(i.relatives)).toEqual([]);
  });
});

describe('relativesRefusal', () => {
  /** A relative that wrote the report this run writes, and what this content would repeat. */
  async function inTheWay(choices: CampaignChoices = {}, resumedNothing = false) {
    await send({ choices: { limit: 4 } });
    const id = await newest();
    const before = (await readFile(path('list.csv'))).length;
    await fixRow();
    const after = (await readFile(path('list.csv'))).length;
    const { run, identified: i } = await identified({ choices });
    const options = { own: i.identity.id, real: true, force: false };
    const seenBy = await readRelatives(i.relatives, resumedNothing, new Recorded(run), options);
    const related = {
      relatives: i.relatives,
      resumedNothing,
      valid: 6,
      alreadySent: { [id]: 4 },
      seenBy,
      hashes: i.hashes,
    };
    return { id, before, after, refusal: await relativesRefusal(run, related) };
  }

  it('names the relative, what differs, and how many recipients would get it twice', async () => {
    const { id, before, after, refusal } = await inTheWay();
    expect(refusal).toMatchObject({ code: 'report-exists', exitCode: 2 });
    expect(refusal?.message).toMatch(
      new RegExp(
        `^campaign ${id} \\(finished, \\d{4}-\\d\\d-\\d\\d: 4 accepted of 6\\) read the same ` +
          `${path('list.csv')} and wrote the report ${path('report.csv')} this run would write; `,
      ),
    );
    expect(refusal?.message).toContain(
      `this content differs from it: ${path('list.csv')} changed since (${before} bytes then, ` +
        `${after} now), and 4 records of this one go to recipients it accepted or may have sent to. ` +
        'Nothing was sent. --skip-sent-by sends this content as a campaign of its own without ' +
        'them (2 records); --force sends all 6, 4 of them to recipients that may have had the ' +
        'message already.',
    );
    expect(refusal?.next).toMatchObject({ add: ['--skip-sent-by', id] });
  });

  it('says first that a --resume found nothing to resume', async () => {
    const { refusal } = await inTheWay({ resume: true }, true);
    expect(refusal?.message).toMatch(/^nothing to resume: no run of this content is recorded\. /);
  });

  it('is not made with --force', async () => {
    expect((await inTheWay({ force: true })).refusal).toBeUndefined();
  });

  it('is not made for a finished relative that only read the same path', async () => {
    await send();
    const id = await newest();
    await fixRow();
    await rm(path('report.csv'));
    const { run, identified: i } = await identified();
    const related = {
      relatives: i.relatives,
      resumedNothing: false,
      valid: 6,
      alreadySent: { [id]: 6 },
      seenBy: [],
      hashes: i.hashes,
    };
    expect(i.relatives).toHaveLength(1);
    expect(await relativesRefusal(run, related)).toBeUndefined();
  });
});
