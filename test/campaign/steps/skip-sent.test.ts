// --skip-sent-by: how a named campaign is found, which campaigns are linked to it (however far),
// whom they may have sent to (left out, nobody twice), what is refused, and how a campaign whose
// rest another one sent is kept from being continued.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  markSuperseded,
  readSkipped,
  Recorded,
  refuseSuperseded,
  resolveSkipped,
  storesOf,
} from '../../../src/campaign/steps/skip-sent.js';
import type { CampaignChoices, CampaignRun } from '../../../src/campaign/run.js';
import type { Held } from '../../../src/journal/store.js';
import { SmsSendError } from '../../../src/shared/errors.js';
import { mobile } from '../../helpers/files.js';
import { sendRun, stepRun, type StepRunOptions, StepFolder } from '../../helpers/step-run.js';

const folder = new StepFolder(6);

async function runOf(options: StepRunOptions = {}): Promise<CampaignRun> {
  const run = await stepRun(folder.dir.path, folder.gateway.url, options);
  folder.open.push(run);
  return run;
}

/** Sends this list as campaign `name` (its ID), with `choices`; each writes a report of its own. */
async function sent(name: string, choices: CampaignChoices = {}): Promise<string> {
  const options = { settings: { campaign: name }, choices: { report: `${name}.csv`, ...choices } };
  await sendRun(folder.dir.path, folder.gateway.url, options);
  return name;
}

/** A pilot of two records, then the rest sent --skip-sent-by it, then the rest of that (none left). */
async function chain(): Promise<void> {
  await sent('pilot', { limit: 2 });
  await sent('rest', { skipSentBy: ['pilot'] });
  await sent('last', { skipSentBy: ['rest'] });
}

const numbers = (rows: number[]) => Float64Array.from(rows.map((r) => Number(mobile(r))));

async function rejection(promise: Promise<unknown>): Promise<SmsSendError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SmsSendError);
  return error as SmsSendError;
}

describe('Recorded.find and resolveSkipped', () => {
  // Each case a reference to the same three campaigns, sent once.
  it('finds a campaign by its ID, or by the start of it only it has', async () => {
    for (const name of ['night', 'night-a', 'night-bee']) await sent(name);
    for (const [what, ref, id] of [
      ['its ID', 'night-a', 'night-a'],
      ['the start only it has', 'night-b', 'night-bee'],
      ['an ID before one that starts with it', 'night', 'night'],
    ]) {
      const run = await runOf({ choices: { skipSentBy: [ref!] } });
      const found = await resolveSkipped(run, new Recorded(run));
      expect(
        found.map((s) => s.entry.manifest.id),
        what,
      ).toEqual([id]);
      expect(found[0]!.store, what).toBe(run.store);
    }
  });

  it('refuses a reference no campaign starts with, or two do', async () => {
    for (const name of ['night-a', 'night-b']) await sent(name);
    for (const [ref, code, words] of [
      ['dawn', 'campaign-unknown', '--skip-sent-by dawn: no such campaign in'],
      ['night-', 'campaign-ambiguous', 'campaign "night-" is ambiguous'],
    ] as const) {
      const run = await runOf({ choices: { skipSentBy: [ref] } });
      const error = await rejection(resolveSkipped(run, new Recorded(run)));
      expect(error, ref).toMatchObject({ code, exitCode: 2 });
      expect(error.message).toContain(words);
      // Each that matched is named, or none when none did.
      for (const name of ['night-a', 'night-b']) {
        expect(error.message.includes(name), ref).toBe(code === 'campaign-ambiguous');
      }
    }
  });

  it('lists the campaigns once, and again after refresh()', async () => {
    await sent('one');
    const run = await runOf();
    const recorded = new Recorded(run);
    expect((await recorded.entries()).map((s) => s.entry.manifest.id)).toEqual(['one']);
    await sent('two');
    expect(await recorded.entries()).toHaveLength(1);
    recorded.refresh();
    expect((await recorded.entries()).map((s) => s.entry.manifest.id).sort()).toEqual([
      'one',
      'two',
    ]);
  });

  it("sees the run's own store only, without a state URL", async () => {
    const run = await runOf();
    expect(storesOf(run)).toEqual([run.store]);
  });
});

describe('Recorded.linked and sentBy', () => {
  // Each case a walk through the same chain, sent once.
  it('reaches every campaign linked, however far, but not through the one set apart', async () => {
    await chain();
    await sent('other');
    const run = await runOf();
    const recorded = new Recorded(run);
    for (const [what, ids, apart, members] of [
      ['the start of a chain reaches its end', ['pilot'], undefined, ['last', 'pilot', 'rest']],
      ['the end of a chain reaches its start', ['last'], undefined, ['last', 'pilot', 'rest']],
      ['nothing is gone through the campaign set apart', ['last'], 'rest', ['last']],
      ['an unlinked campaign is alone', ['other'], undefined, ['other']],
    ] as const) {
      const linked = await recorded.linked(ids, apart);
      expect(linked.members.map((s) => s.entry.manifest.id).sort(), what).toEqual(members);
      expect(linked.missing, what).toEqual([]);
    }
  });

  it('a link goes both ways: a campaign reaches one that named it, though it was not told', async () => {
    await sent('pilot', { limit: 2 });
    // A rehearsal of the rest does not mark the real pilot superseded: only its own shape links.
    await sent('rehearsed-rest', { skipSentBy: ['pilot'], simulate: true });
    const run = await runOf();
    const linked = await new Recorded(run).linked(['pilot']);
    expect(linked.members.map((s) => s.entry.manifest.id).sort()).toEqual([
      'pilot',
      'rehearsed-rest',
    ]);
  });

  it('whom a campaign and those linked to it sent to: each recipient once, sorted', async () => {
    await chain();
    const run = await runOf();
    const sent = await new Recorded(run).sentBy('pilot', 'new', true);
    expect(sent).toMatchObject({ id: 'pilot', unnamed: 0, missing: [] });
    expect(sent.numbers).toEqual(numbers([1, 2, 3, 4, 5, 6]));
    expect([...sent.linked].sort()).toEqual(['last', 'rest']);
  });

  it.each([
    ['a run that reaches phones leaves out nobody a rehearsal sent to', true, []],
    ['a rehearsal leaves them out', false, [1, 2]],
  ])('%s', async (_what, real, rows) => {
    await sent('rehearsed', { simulate: true, limit: 2 });
    const run = await runOf();
    expect((await new Recorded(run).sentBy('rehearsed', 'new', real)).numbers).toEqual(
      numbers(rows),
    );
  });
});

describe('readSkipped', () => {
  it('holds each named campaign while the run goes, and reads whom it sent to', async () => {
    await sent('pilot', { limit: 2 });
    const run = await runOf({ choices: { skipSentBy: ['pilot'] } });
    const recorded = new Recorded(run);
    const holds = new Map<string, Held>();
    const skipped = await resolveSkipped(run, recorded);
    try {
      const set = await readSkipped(skipped, 'new', recorded, { real: true, holds });
      expect(set.sentBy).toEqual([{ id: 'pilot', numbers: numbers([1, 2]), linked: [] }]);
      expect(set.notes).toEqual([]);
      expect([...holds.keys()]).toEqual(['pilot']);
      // Held: another run's hold of it is exit 4 until this one lets go.
      const other = await rejection(run.store.hold('pilot', 'testing'));
      expect(other).toMatchObject({ code: 'locked', exitCode: 4 });
    } finally {
      for (const held of holds.values()) await held.release();
    }
    const again = await run.store.hold('pilot', 'testing');
    await again.release();
  });

  it('refuses a rehearsal named by a run that reaches phones, and holds nothing', async () => {
    await sent('rehearsed', { simulate: true, limit: 2 });
    const run = await runOf({ choices: { skipSentBy: ['rehearsed'] } });
    const recorded = new Recorded(run);
    const holds = new Map<string, Held>();
    const skipped = await resolveSkipped(run, recorded);
    const error = await rejection(readSkipped(skipped, 'new', recorded, { real: true, holds }));
    expect(error).toMatchObject({ code: 'usage', exitCode: 2 });
    expect(error.message).toContain('--skip-sent-by rehearsed names a rehearsal');
    expect(holds.size).toBe(0);
    // A rehearsal of the rest may leave out whom the rehearsal reached.
    const set = await readSkipped(skipped, 'new', recorded, { real: false });
    expect(set.sentBy[0]!.numbers).toEqual(numbers([1, 2]));
  });

  it.each([
    [
      'one campaign',
      ['pilot'],
      'campaign pilot, linked to campaign last by --skip-sent-by or retry, is',
    ],
    [
      'two campaigns',
      ['pilot', 'rest'],
      '2 campaigns linked to campaign last by --skip-sent-by or retry (rest among them) are',
    ],
  ])('says that %s linked to it is no longer recorded (pruned)', async (_what, gone, words) => {
    // The last names both: a link of its own to each.
    await sent('pilot', { limit: 2 });
    await sent('rest', { skipSentBy: ['pilot'] });
    await sent('last', { skipSentBy: ['pilot', 'rest'] });
    for (const id of gone)
      await rm(join(folder.dir.path, 'state', 'campaigns', id), { recursive: true });
    const run = await runOf();
    const recorded = new Recorded(run);
    const skipped = [await recorded.find('last')];
    const set = await readSkipped(skipped, 'new', recorded, { real: true });
    expect(set.notes).toEqual([
      `note: ${words} no longer recorded (pruned): whom ${gone.length === 1 ? 'it' : 'they'} ` +
        'sent to is not known, and not left out',
    ]);
    // Whom the pruned ones sent to is lost: only the rest of the chain is left out.
    expect(set.sentBy[0]!.numbers).toEqual(gone.length === 1 ? numbers([3, 4, 5, 6]) : numbers([]));
  });
});

describe('refuseSuperseded and markSuperseded', () => {
  it('refuses to continue a campaign whose rest another one sent', async () => {
    await sent('pilot', { limit: 2 });
    await sent('rest', { skipSentBy: ['pilot'] });
    const run = await runOf();
    const error = await rejection(refuseSuperseded(new Recorded(run), 'pilot'));
    expect(error).toMatchObject({ code: 'superseded', exitCode: 2 });
    expect(error.message).toContain('and campaign rest sent the rest of its content');
    await expect(refuseSuperseded(new Recorded(run), 'rest')).resolves.toBeUndefined();
  });

  it('finds the campaign that names it even when its own manifest does not say so', async () => {
    await sent('pilot', { limit: 2 });
    await sent('rest', { skipSentBy: ['pilot'] });
    // As a manifest written before supersededBy was recorded.
    const file = join(folder.dir.path, 'state', 'campaigns', 'pilot', 'manifest.json');
    const { supersededBy, ...manifest } = JSON.parse(await readFile(file, 'utf8')) as {
      supersededBy?: string[];
    };
    expect(supersededBy).toEqual(['rest']);
    await writeFile(file, JSON.stringify(manifest));
    const run = await runOf();
    const error = await rejection(refuseSuperseded(new Recorded(run), 'pilot'));
    expect(error.code).toBe('superseded');
  });

  it('a rehearsal of the rest does not keep the real campaign from going on', async () => {
    await sent('pilot', { limit: 2 });
    await sent('rehearsed-rest', { skipSentBy: ['pilot'], simulate: true });
    const run = await runOf();
    await expect(refuseSuperseded(new Recorded(run), 'pilot')).resolves.toBeUndefined();
  });

  it('markSuperseded writes the campaign sending the rest into each one held', async () => {
    await sent('pilot', { limit: 2 });
    const run = await runOf();
    const held = await run.store.hold('pilot', 'testing');
    try {
      await markSuperseded([held], 'later');
    } finally {
      await held.release();
    }
    const [entry] = await run.store.campaigns({ id: 'pilot' });
    expect(entry?.manifest.supersededBy).toEqual(['later']);
  });
});
