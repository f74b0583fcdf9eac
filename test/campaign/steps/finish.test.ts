// How a run's end is recorded: the manifest's status, reason and counts for each way a run ends, the exit code it answers with, a manifest that cannot be written turning into a stop on the state, and the run's record kept or only warned about.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finish, keepRunRecord } from '../../../src/campaign/steps/finish.js';
import { journaledSend } from '../../../src/campaign/steps/journaled-send.js';
import { RunKeeper } from '../../../src/campaign/steps/run-record.js';
import { markRunning } from '../../../src/campaign/steps/running.js';
import type { SendResult } from '../../../src/campaign/types.js';
import { recordTimeline } from '../../../src/report/html/recorder.js';
import { injectDiskFault } from '../../../src/shared/disk.js';
import { ExitCode } from '../../../src/shared/errors.js';
import { FakeClock } from '../../helpers/clock.js';
import { manifestOf, ready, StepFixture, stepRun } from '../../helpers/step-run-3.js';

const RECORDS = 3;
/** 03:04 UTC: outside a 09:00–21:00 window, which opens again at 09:00. */
const AT = Date.UTC(2026, 0, 2, 3, 4, 5);
const WINDOW = ['--window', '09:00-21:00', '--tz', 'UTC'];

const fixture = new StepFixture(RECORDS);

/** The run of `args`, marked running: where finish() finds it. */
async function running(args: string[] = []) {
  const run = await stepRun(fixture.dir, args, { clock: new FakeClock(AT) });
  fixture.taken = await ready(run);
  await markRunning(run, fixture.taken.campaign, fixture.taken.hold, fixture.taken.gateway.sentTo);
  return fixture.taken;
}

const unstopped: SendResult = { interrupted: false, notSent: 0 };

describe('finish', () => {
  // [case, arguments, how the send ended, the status, the reason, the exit code]
  const cases: [string, string[], SendResult, string, string | undefined, ExitCode][] = [
    [
      'a gateway that refused',
      [],
      { stopped: { reason: 'HTTP 401', authRefused: true }, interrupted: false, notSent: 3 },
      'stopped',
      'HTTP 401',
      ExitCode.gatewayUnusable,
    ],
    [
      'a state that could not be kept',
      [],
      {
        stopped: { reason: 'full', authRefused: false, stateUnwritable: true },
        interrupted: false,
        notSent: 3,
      },
      'stopped',
      'full',
      ExitCode.stateUnwritable,
    ],
    [
      'a takeover',
      [],
      {
        stopped: { reason: 'taken', authRefused: false, stateUnwritable: true, takenOver: true },
        interrupted: false,
        notSent: 3,
      },
      'stopped',
      'taken',
      ExitCode.locked,
    ],
    [
      'a Ctrl-C',
      [],
      { interrupted: true, notSent: 3 },
      'interrupted',
      undefined,
      ExitCode.interrupted,
    ],
    [
      'the send window closing',
      WINDOW,
      { interrupted: false, windowClosed: true, notSent: 3 },
      'stopped',
      'the send window closed: 09:00-21:00 UTC',
      ExitCode.outsideWindow,
    ],
  ];

  it.each(cases)(
    'records %s in the manifest',
    async (_name, args, result, status, reason, code) => {
      const { run, campaign, hold } = await running(args);
      const ended = await finish(run, campaign, hold, { result, sent: 0 });
      expect(ended.exitCode).toBe(code);
      const manifest = await manifestOf(fixture.dir, campaign.identity.id);
      expect(manifest).toMatchObject({ status, records: 0, updatedAt: new Date(AT).toISOString() });
      expect(manifest?.reason).toBe(reason);
      expect(manifest?.rehearsal).toBeUndefined();
    },
  );

  it('a send window that closed says what went, what is left and when it opens', async () => {
    const { run, campaign, hold } = await running(WINDOW);
    const result: SendResult = { interrupted: false, windowClosed: true, notSent: 2 };
    const ended = await finish(run, campaign, hold, { result, sent: 1 });
    expect(ended.windowClosed).toMatchObject({
      sent: 1,
      left: 2,
      timeZone: 'UTC',
      now: AT,
      opensAt: Date.UTC(2026, 0, 2, 9),
    });
  });

  it('a whole send finishes with its counts; an answer of the simulator’s makes it a rehearsal', async () => {
    const { run, campaign, hold, settled, gateway } = await running();
    const sending = await journaledSend(run, campaign, hold, settled, undefined, gateway.client);
    // The gateway's answers said it was sms-send's simulator: nothing reached a phone.
    sending.result.rehearsal = true;
    const ended = await finish(run, campaign, hold, sending);
    expect(ended.exitCode).toBe(ExitCode.ok);
    expect(ended.summary.byOutcome.accepted).toBe(RECORDS);
    expect(await manifestOf(fixture.dir, campaign.identity.id)).toMatchObject({
      status: 'finished',
      records: RECORDS,
      counts: { accepted: RECORDS, failed: 0 },
      rehearsal: true,
    });
  });

  it('a manifest that cannot be written is a stop on the state (exit 6); it still says running', async () => {
    const { run, campaign, hold } = await running();
    injectDiskFault((_op, path) =>
      path.startsWith(fixture.dir.stateDir)
        ? {
            error: Object.assign(new Error('ENOSPC: no space left on device, write'), {
              code: 'ENOSPC',
            }),
          }
        : undefined,
    );
    const result: SendResult = { ...unstopped };
    const ended = await finish(run, campaign, hold, { result, sent: 0 });
    injectDiskFault(undefined);
    expect(ended.exitCode).toBe(ExitCode.stateUnwritable);
    expect(result.stopped).toMatchObject({ stateUnwritable: true, authRefused: false });
    expect(result.stopped?.reason).toContain('no space left on device');
    expect((await manifestOf(fixture.dir, campaign.identity.id))?.status).toBe('running');
  });

  it('a manifest that cannot be written leaves an earlier stop’s reason standing', async () => {
    const { run, campaign, hold } = await running();
    injectDiskFault((_op, path) =>
      path.startsWith(fixture.dir.stateDir)
        ? { error: Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }) }
        : undefined,
    );
    const result: SendResult = {
      stopped: { reason: 'HTTP 401', authRefused: true },
      interrupted: false,
      notSent: 3,
    };
    const ended = await finish(run, campaign, hold, { result, sent: 0 });
    expect(ended.exitCode).toBe(ExitCode.gatewayUnusable);
    expect(result.stopped).toEqual({ reason: 'HTTP 401', authRefused: true });
  });
});

describe('keepRunRecord', () => {
  it('keeps the timeline in the state and writes the page asked for', async () => {
    const html = `${fixture.dir.path}/page.html`;
    const { run, campaign, hold, settled, gateway } = await running(['--html', html]);
    const timeline = recordTimeline(run.io.events, run.settings, 'sms-send campaign.csv');
    const sending = await journaledSend(run, campaign, hold, settled, undefined, gateway.client);
    await finish(run, campaign, hold, sending);
    const warnings: string[] = [];
    run.io.events.on('warning', (w: string) => warnings.push(w));
    await keepRunRecord(run, campaign, new RunKeeper(run, hold, timeline, gateway.sentTo));
    expect(warnings).toEqual([]);
    const kept = JSON.stringify(await run.store.runs(campaign.identity.id));
    expect(kept).toContain(fixture.dir.gateway.url);
    expect(await readFile(html, 'utf8')).toContain(campaign.identity.id);
  });

  it('a page that cannot be written is a warning: the run ends as it did', async () => {
    const html = `${fixture.dir.path}/no-such-folder/page.html`;
    const { run, campaign, hold, gateway } = await running(['--html', html]);
    const timeline = recordTimeline(run.io.events, run.settings, '');
    await finish(run, campaign, hold, { result: { ...unstopped }, sent: 0 });
    const warnings: string[] = [];
    run.io.events.on('warning', (w: string) => warnings.push(w));
    await keepRunRecord(run, campaign, new RunKeeper(run, hold, timeline, gateway.sentTo));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^the page ${html} was not written: `));
    expect(existsSync(html)).toBe(false);
  });

  it('a timeline that cannot be kept is a warning too', async () => {
    const { run, campaign, hold, settled, gateway } = await running();
    const timeline = recordTimeline(run.io.events, run.settings, '');
    // A run that sent nothing has no timeline to keep.
    const sending = await journaledSend(run, campaign, hold, settled, undefined, gateway.client);
    await finish(run, campaign, hold, sending);
    const warnings: string[] = [];
    run.io.events.on('warning', (w: string) => warnings.push(w));
    const path = join(fixture.dir.stateDir, 'campaigns', campaign.identity.id, 'timeline.json');
    injectDiskFault((_op, at) =>
      at.startsWith(path)
        ? { error: Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }) }
        : undefined,
    );
    await keepRunRecord(run, campaign, new RunKeeper(run, hold, timeline, gateway.sentTo));
    injectDiskFault(undefined);
    expect(warnings).toEqual(["the run's timeline was not kept: i/o error (EIO)"]);
  });
});
