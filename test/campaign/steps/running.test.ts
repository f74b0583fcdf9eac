// What starting a campaign writes before anything is sent: its running manifest, the campaigns it supersedes told so, a report in its way set aside, and a state that refuses all that refusing the run.
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  markRunning,
  markSupersedes,
  setOwnersReportAside,
} from '../../../src/campaign/steps/running.js';
import { hostname } from 'node:os';
import { injectDiskFault } from '../../../src/shared/disk.js';
import { ExitCode, SmsSendError } from '../../../src/shared/errors.js';
import { FakeClock } from '../../helpers/clock.js';
import {
  manifestOf,
  ready,
  sendWhole,
  stepDir,
  stepRun,
  type Ready,
  type StepDir,
} from '../../helpers/step-run-3.js';

const AT = Date.UTC(2026, 0, 2, 3, 4, 5);
const ZERO = { accepted: 0, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 };
/** One message a batch, and a gateway that refuses is not waited for. */
const STEADY = ['--batch-size', '1', '--concurrency', '1', '--retries', '0', '--outage-grace', '0'];

let dir: StepDir;
let taken: Ready | undefined;

beforeEach(async () => {
  dir = await stepDir(3);
});
afterEach(async () => {
  injectDiskFault(undefined);
  await taken?.close();
  taken = undefined;
  await dir.remove();
});

/** The run of `args`, taken up to its send, with the notes it says. */
async function take(args: string[] = [], clock = new FakeClock(AT)) {
  const run = await stepRun(dir, args, { clock });
  const notes: string[] = [];
  run.io.events.on('note', (note: string) => notes.push(note));
  taken = await ready(run);
  return { ...taken, notes };
}

/** Every write, rename and creation under `path` fails as a full disk's. */
function diskFullUnder(path: string): void {
  injectDiskFault((_op, at) =>
    at.startsWith(path)
      ? {
          error: Object.assign(new Error('ENOSPC: no space left on device, write'), {
            code: 'ENOSPC',
          }),
        }
      : undefined,
  );
}

async function refusal(promise: Promise<unknown>): Promise<SmsSendError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SmsSendError);
  return error as SmsSendError;
}

describe('markRunning', () => {
  // [case, arguments, the manifest fields they make]
  const cases: [string, string[], Record<string, unknown>][] = [
    ['a real send', [], { rehearsal: undefined, limit: undefined, pricing: undefined }],
    ['the built-in simulator: a rehearsal from the start', ['--simulate'], { rehearsal: true }],
    ['a limit is kept for the resume that goes past it', ['--limit', '2'], { limit: 2 }],
    [
      'its prices, for its page',
      ['--price-per-segment', '0.25', '--currency', 'NOK'],
      { pricing: { pricePerSegment: 0.25, currency: 'NOK' } },
    ],
  ];

  it.each(cases)('writes the running manifest of %s', async (_name, args, fields) => {
    const { run, campaign, hold, gateway } = await take(args);
    const started: number[] = [];
    run.io.events.on('started', ({ at }: { at: number }) => started.push(at));
    await markRunning(run, campaign, hold, gateway.sentTo);
    const manifest = await manifestOf(dir, campaign.identity.id);
    expect(manifest).toMatchObject({
      id: campaign.identity.id,
      contentHash: campaign.identity.contentHash,
      status: 'running',
      target: gateway.simulated ? 'simulator' : dir.gateway.url,
      reports: [dir.report],
      inputs: [{ path: dir.input, ...campaign.hashes[0] }],
      records: 3,
      counts: ZERO,
      host: hostname(),
      startedAt: new Date(AT).toISOString(),
      runs: 1,
    });
    for (const [key, value] of Object.entries(fields))
      expect(manifest?.[key as 'limit']).toEqual(value);
    // The run's time starts here, not at validation: its rate and ETA count from it.
    expect(started).toEqual([AT]);
    expect(campaign.tally.startedAt).toBe(AT);
    expect(dir.gateway.log).toEqual([]);
  });

  it('a resume starts from the counts the earlier run settled, not from nothing', async () => {
    dir.gateway.refuseFrom(2);
    const first = await sendWhole(dir, STEADY);
    const before = await manifestOf(dir, first.campaign.identity.id);
    expect(before?.counts).toMatchObject({ accepted: 2, failed: 1 });
    dir.gateway.refuseFrom(undefined);
    const { run, campaign, hold, gateway } = await take([...STEADY, '--resume']);
    await markRunning(run, campaign, hold, gateway.sentTo);
    const after = await manifestOf(dir, campaign.identity.id);
    expect(after).toMatchObject({ status: 'running', runs: 2, counts: before!.counts });
  });

  it('says what starting did to earlier state: a rehearsal’s report set aside', async () => {
    await sendWhole(dir, ['--simulate']);
    const { run, campaign, hold, gateway, notes } = await take();
    expect(notes).toEqual([]);
    await markRunning(run, campaign, hold, gateway.sentTo);
    expect(notes).toEqual([
      `the report ${dir.report} was a rehearsal's: it is now ${dir.path}/report.rehearsal.report.csv`,
    ]);
    expect(existsSync(dir.report)).toBe(false);
  });

  it('a manifest that cannot be written refuses the run: exit 2, nothing sent', async () => {
    const { run, campaign, hold, gateway } = await take();
    diskFullUnder(dir.stateDir);
    const error = await refusal(markRunning(run, campaign, hold, gateway.sentTo));
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.message).toContain('no space left on device');
    expect(error.message).toContain('nothing was sent');
    injectDiskFault(undefined);
    expect((await manifestOf(dir, campaign.identity.id))?.status).not.toBe('running');
    expect(dir.gateway.log).toEqual([]);
  });
});

describe('markSupersedes', () => {
  // [case, the run's arguments besides --skip-sent-by, whether the real campaign is told]
  const cases: [string, string[], boolean][] = [
    ['a real run sends the rest of a real campaign', [], true],
    ['a rehearsal supersedes only rehearsals', ['--simulate'], false],
  ];

  it.each(cases)('%s', async (_name, args, told) => {
    const earlier = (await sendWhole(dir, ['--limit', '1'])).campaign.identity.id;
    const { run, campaign, hold, gateway } = await take([
      ...args,
      '--skip-sent-by',
      earlier,
      '--report',
      `${dir.path}/second.csv`,
    ]);
    await markRunning(run, campaign, hold, gateway.sentTo);
    await markSupersedes(campaign, hold);
    const manifest = await manifestOf(dir, earlier);
    expect(manifest?.supersededBy).toEqual(told ? [campaign.identity.id] : undefined);
  });

  it('a campaign that cannot be told refuses the run: exit 2, nothing sent', async () => {
    const earlier = (await sendWhole(dir, ['--limit', '1'])).campaign.identity.id;
    const { run, campaign, hold, gateway } = await take([
      '--skip-sent-by',
      earlier,
      '--report',
      `${dir.path}/second.csv`,
    ]);
    await markRunning(run, campaign, hold, gateway.sentTo);
    diskFullUnder(`${dir.stateDir}/campaigns/${earlier}`);
    const error = await refusal(markSupersedes(campaign, hold));
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.message).toContain('nothing was sent');
    injectDiskFault(undefined);
    expect((await manifestOf(dir, earlier))?.supersededBy).toBeUndefined();
    expect(dir.gateway.log.length).toBe(1);
  });
});

describe('setOwnersReportAside', () => {
  it('a run that writes where nobody’s report is moves nothing and says nothing', async () => {
    const { run, campaign, hold, notes } = await take();
    expect(hold.reportOwner).toBeUndefined();
    await setOwnersReportAside(run, campaign, hold);
    expect(notes).toEqual([]);
  });

  // [case, the run's arguments: another content over the report, or the campaign it skips]
  const cases: [string, (earlier: string) => string[]][] = [
    ['--force over another campaign’s report', () => ['--text', 'Hi {name}', '--force']],
    ['--skip-sent-by that campaign, through the run’s hold on it', (id) => ['--skip-sent-by', id]],
  ];

  it.each(cases)('%s: kept under its campaign’s ID, its manifest told', async (_name, args) => {
    const earlier = (await sendWhole(dir)).campaign.identity.id;
    const { run, campaign, hold, notes } = await take(args(earlier));
    expect(hold.reportOwner?.id).toBe(earlier);
    await setOwnersReportAside(run, campaign, hold);
    const kept = (await manifestOf(dir, earlier))?.reports;
    expect(kept).toHaveLength(1);
    expect(kept![0]).not.toBe(dir.report);
    expect(kept![0]).toContain(earlier);
    expect(existsSync(kept![0]!)).toBe(true);
    expect(existsSync(dir.report)).toBe(false);
    expect(notes).toEqual([
      `the report ${dir.report} was campaign ${earlier}'s: it is kept as ${kept![0]}`,
    ]);
  });

  it('a report that cannot be set aside refuses the run: exit 2', async () => {
    const earlier = (await sendWhole(dir)).campaign.identity.id;
    const { run, campaign, hold } = await take(['--text', 'Hi {name}', '--force']);
    diskFullUnder(dir.path);
    const error = await refusal(setOwnersReportAside(run, campaign, hold));
    injectDiskFault(undefined);
    expect(error.exitCode).toBe(ExitCode.usage);
    expect((await manifestOf(dir, earlier))?.reports).toEqual([dir.report]);
  });
});
