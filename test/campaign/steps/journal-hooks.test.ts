// The journal around each request: a batch is on the disk before it leaves, its answer after, and a journal or report that refuses stops the batches that would follow; judged by what the loopback gateway got and the journal holds.
import { describe, expect, it } from 'vitest';
import {
  loopGateway,
  notStarted,
  startJournal,
} from '../../../src/campaign/steps/journal-hooks.js';
import { markRunning } from '../../../src/campaign/steps/running.js';
import { checkedSpool, type Sending } from '../../../src/campaign/steps/sending.js';
import { normalizes } from '../../../src/campaign/steps/validation-pass.js';
import { HoldLostError } from '../../../src/journal/store.js';
import type { JournalSink } from '../../../src/journal/lines.js';
import type { RowResult } from '../../../src/message/outcome.js';
import { reportColumns } from '../../../src/report/row.js';
import { ReportSink } from '../../../src/report/sink.js';
import { openReport } from '../../../src/report/writer.js';
import { sendLoop } from '../../../src/send/send.js';
import { injectDiskFault } from '../../../src/shared/disk.js';
import {
  ExitCode,
  LockedError,
  NotAllAcceptedError,
  SmsSendError,
  StateStoreError,
  UsageError,
} from '../../../src/shared/errors.js';
import { FakeClock } from '../../helpers/clock.js';
import { mobile } from '../../helpers/files.js';
import { journalLines, ready, reportRows, StepFixture, stepRun } from '../../helpers/step-run-3.js';

const AT = Date.UTC(2026, 0, 2, 3, 4, 5);
/** Five records in batches of two, one in flight at a time: the batches go in order. */
const RECORDS = 5;
const STEADY = ['--batch-size', '2', '--concurrency', '1', '--retries', '0', '--outage-grace', '0'];

const fixture = new StepFixture(RECORDS);

function full(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

/** The campaign of `args`, marked running as the run marks it before its journal opens. */
async function sending(args: string[] = STEADY, clock = new FakeClock(AT)): Promise<Sending> {
  const run = await stepRun(fixture.dir, args, { clock });
  fixture.taken = await ready(run);
  const { campaign, hold, settled, gateway } = fixture.taken;
  await markRunning(run, campaign, hold, gateway.sentTo);
  const spool = checkedSpool(hold.local.spool, campaign.plan.records);
  return { run, campaign, hold, settled, spool };
}

/** The send loop through the hooks, its rows into the report as the send step wires them. */
async function loop(step: Sending, runNumber: number, journal: JournalSink) {
  const { run, campaign } = step;
  const writer = await openReport(campaign.reportPath, {
    force: false,
    columns: reportColumns({ normalized: normalizes(run), followUp: false }),
  });
  const sink = new ReportSink(writer);
  run.io.events.on('record', (row: RowResult) => sink.add(row));
  run.io.events.on('batch', () => void sink.flush());
  const gateway = loopGateway(step, journal, sink, runNumber, fixture.taken!.gateway.client);
  const outcome = await sendLoop(step.spool.read(), run, gateway);
  await journal.close().catch(() => undefined);
  await sink.close().catch(() => undefined);
  return outcome;
}

describe('notStarted', () => {
  const disk = full();
  const refused = new StateStoreError('permission denied for table manifests', true, 'GRANT it');
  const own = new NotAllAcceptedError('already worded');
  // [case, the failure, the exit code, the refusal's words]
  const cases: [string, unknown, ExitCode, string][] = [
    ['our own error stands as it is', own, ExitCode.notAllAccepted, 'already worded'],
    [
      'a takeover is exit 4, nothing sent',
      new HoldLostError('c1'),
      ExitCode.locked,
      'another run took campaign c1 over before this run sent anything: nothing was sent',
    ],
    [
      'a database’s refusal in its words, with its advice',
      refused,
      ExitCode.usage,
      'permission denied for table manifests; nothing was sent. GRANT it',
    ],
    [
      'a full disk is exit 2, nothing sent',
      disk,
      ExitCode.usage,
      'campaign state could not be written: no space left on device (ENOSPC). Nothing was sent.',
    ],
  ];

  it.each(cases)('%s', (_name, failure, exitCode, message) => {
    const stop = notStarted(failure);
    expect(stop).toBeInstanceOf(SmsSendError);
    expect([stop.exitCode, stop.message]).toEqual([exitCode, message]);
  });

  it('keeps our own error the same object, and tells a full disk’s run to --resume', () => {
    const own = new LockedError('held');
    expect(notStarted(own)).toBe(own);
    const stop = notStarted(full());
    expect(stop).toBeInstanceOf(UsageError);
    expect(stop.code).toBe('state-unwritable');
    expect(stop.next).toMatchObject({ add: ['--resume'], drop: ['--force'] });
  });
});

describe('startJournal', () => {
  it('records the run’s start: the content, the run’s number, its time', async () => {
    const step = await sending();
    const journal = await startJournal(step, 2);
    await journal.close();
    expect(await journalLines(fixture.dir, step.campaign.identity.id)).toEqual([
      {
        t: 'start',
        v: 2,
        campaign: step.campaign.identity.contentHash,
        run: 2,
        at: new Date(AT).toISOString(),
      },
    ]);
  });

  it('a journal that cannot be started refuses the run (exit 2), before the gateway', async () => {
    const step = await sending();
    injectDiskFault((op, path) =>
      path.endsWith('journal.ndjson') && op !== 'rename' ? { error: full() } : undefined,
    );
    const error: unknown = await startJournal(step, 1).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).code).toBe('state-unwritable');
    expect((error as UsageError).message).toContain('Nothing was sent');
    expect(fixture.dir.gateway.log).toEqual([]);
  });
});

describe('loopGateway', () => {
  it('journals each batch before it leaves and its answer after, under the run’s number', async () => {
    const step = await sending();
    const outcome = await loop(step, 3, await startJournal(step, 3));
    expect(outcome).toMatchObject({ interrupted: false, notSent: 0 });
    expect(outcome.stopped).toBeUndefined();
    expect(fixture.dir.gateway.log.map((m) => m.to)).toEqual([0, 1, 2, 3, 4].map(mobile));
    const lines = await journalLines(fixture.dir, step.campaign.identity.id);
    const kinds = lines.slice(1).map((line) => `${line.t} ${'b' in line ? line.b : ''}`);
    expect(kinds).toEqual([
      'batch 3:1',
      'posted 3:1',
      'result 3:1',
      'batch 3:2',
      'posted 3:2',
      'result 3:2',
      'batch 3:3',
      'posted 3:3',
      'result 3:3',
    ]);
    // Whom each batch may reach is journaled with it: --skip-sent-by reads it on any host.
    expect(lines[1]).toMatchObject({ r: [1, 2], to: `${mobile(0)},${mobile(1)}` });
  });

  it('a batch the journal cannot record is never sent, nor any after it', async () => {
    const step = await sending();
    injectDiskFault((op, path, data) =>
      op === 'write' && path.endsWith('journal.ndjson') && String(data).includes('"b":"1:2"')
        ? { error: full() }
        : undefined,
    );
    const outcome = await loop(step, 1, await startJournal(step, 1));
    injectDiskFault(undefined);
    expect(outcome.stopped).toMatchObject({
      stateUnwritable: true,
      reason: 'campaign state could not be written: no space left on device (ENOSPC)',
    });
    expect(outcome.stopped?.takenOver).toBeUndefined();
    expect(fixture.dir.gateway.log.map((m) => m.to)).toEqual([mobile(0), mobile(1)]);
    const batches = (await journalLines(fixture.dir, step.campaign.identity.id)).filter(
      (line) => line.t === 'batch',
    );
    expect(batches).toHaveLength(1);
  });

  it('an answer the journal cannot take stops the batches after it; the answer is held', async () => {
    const step = await sending();
    injectDiskFault((op, path, data) =>
      op === 'write' && path.endsWith('journal.ndjson') && String(data).includes('"t":"result"')
        ? { error: full() }
        : undefined,
    );
    const journal = await startJournal(step, 1);
    const outcome = await loop(step, 1, journal);
    injectDiskFault(undefined);
    expect(outcome.stopped).toMatchObject({ stateUnwritable: true });
    expect(outcome.stopped?.reason).toContain('no space left on device');
    expect(fixture.dir.gateway.log.map((m) => m.to)).toEqual([mobile(0), mobile(1)]);
    // Not lost: held for the end of the run's writing to write again.
    expect(journal.unrecorded().filter((line) => line.t === 'result')).toHaveLength(1);
  });

  it('a report that cannot be written stops the batches after it; the journal keeps the answers', async () => {
    const step = await sending();
    injectDiskFault((op, path, data) =>
      op === 'write' && path === step.campaign.reportPath && String(data).includes(mobile(0))
        ? { error: full() }
        : undefined,
    );
    const outcome = await loop(step, 1, await startJournal(step, 1));
    injectDiskFault(undefined);
    expect(outcome.stopped).toMatchObject({
      stateUnwritable: true,
      reason: `the report ${step.campaign.reportPath} could not be written: no space left on device (ENOSPC)`,
    });
    // The rows are written after the batch's answer, so the failure is seen by an intent after
    // the next one at the latest: the last batch never leaves.
    const sent = fixture.dir.gateway.log.map((m) => m.to);
    expect(sent.slice(0, 2)).toEqual([mobile(0), mobile(1)]);
    expect(sent).not.toContain(mobile(4));
    // Every answer the gateway gave is in the journal: a --resume writes the report from it.
    const lines = await journalLines(fixture.dir, step.campaign.identity.id);
    const results = lines.filter((line) => line.t === 'result').map((line) => line.b);
    expect(results).toEqual(['1:1', '1:2'].slice(0, sent.length / 2));
    expect(await reportRows(step.campaign.reportPath)).toEqual([]);
  });

  // [case, arguments, the hour of the clock, whether a new batch may be taken]
  const windows: [string, string[], number, boolean | undefined][] = [
    ['no send window: nothing to ask', [], 3, undefined],
    ['inside the window', ['--window', '09:00-21:00', '--tz', 'UTC'], 10, true],
    ['outside the window', ['--window', '09:00-21:00', '--tz', 'UTC'], 3, false],
  ];

  it.each(windows)('the send window on the run’s clock: %s', async (_name, args, hour, open) => {
    const clock = new FakeClock(Date.UTC(2026, 0, 2, hour));
    const step = await sending([...STEADY, ...args], clock);
    const journal = await startJournal(step, 1);
    const writer = await openReport(step.campaign.reportPath, { force: false });
    const sink = new ReportSink(writer);
    const gateway = loopGateway(step, journal, sink, 1, fixture.taken!.gateway.client);
    expect(gateway.windowOpen?.()).toBe(open);
    await journal.close();
    await sink.close();
  });
});
