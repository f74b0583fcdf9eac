// The journaled send as the run takes it: every record sent once and reported, a resume sending only what earlier runs left, and a state that fails stopping the sending with what its resume will find.
import { describe, expect, it } from 'vitest';
import { journaledSend } from '../../../src/campaign/steps/journaled-send.js';
import { markRunning } from '../../../src/campaign/steps/running.js';
import { injectDiskFault } from '../../../src/shared/disk.js';
import { mobile } from '../../helpers/files.js';
import {
  journalLines,
  ready,
  reportRows,
  sendWhole,
  StepFixture,
  stepRun,
} from '../../helpers/step-run-3.js';

const RECORDS = 5;
/** Batches of two, one in flight at a time, and a gateway that refuses is not waited for. */
const STEADY = ['--batch-size', '2', '--concurrency', '1', '--retries', '0', '--outage-grace', '0'];
const ALL = [0, 1, 2, 3, 4].map(mobile);

const fixture = new StepFixture(RECORDS);

/** The run of `args` fixture.taken to its send, marked running, and sent. */
async function send(args: string[] = STEADY) {
  const run = await stepRun(fixture.dir, args);
  fixture.taken = await ready(run);
  const { campaign, hold, settled, gateway } = fixture.taken;
  await markRunning(run, campaign, hold, gateway.sentTo);
  const sending = await journaledSend(run, campaign, hold, settled, undefined, gateway.client);
  return { ...sending, campaign };
}

describe('journaledSend', () => {
  it('sends every record once, journals each batch and reports each row', async () => {
    const { result, sent, campaign } = await send();
    expect(result).toMatchObject({ interrupted: false, notSent: 0 });
    expect([result.stopped, result.resumed, result.left]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(sent).toBe(RECORDS);
    expect(fixture.dir.gateway.log.map((m) => m.to)).toEqual(ALL);
    expect(fixture.dir.gateway.twice()).toEqual([]);
    const rows = await reportRows(fixture.dir.report);
    expect(rows.map((r) => [r.to, r.outcome, r.messageId])).toEqual(
      fixture.dir.gateway.log.map((m) => [m.to, 'accepted', m.messageId]),
    );
    expect(campaign.tally.summary(fixture.dir.report).byOutcome.accepted).toBe(RECORDS);
    const lines = await journalLines(fixture.dir, campaign.identity.id);
    expect(lines.map((l) => l.t).filter((t) => t !== 'posted')).toEqual([
      'start',
      ...['batch', 'result', 'batch', 'result', 'batch', 'result'],
    ]);
  });

  it('a resume sends only what earlier runs left, and reports every row', async () => {
    fixture.dir.gateway.refuseFrom(2);
    await sendWhole(fixture.dir, STEADY);
    fixture.dir.gateway.refuseFrom(undefined);
    const { result, sent, campaign } = await send([...STEADY, '--resume']);
    expect(sent).toBe(RECORDS - 2);
    expect(result.stopped).toBeUndefined();
    expect(result.resumed).toBeDefined();
    expect(fixture.dir.gateway.log.map((m) => m.to)).toEqual(ALL);
    expect(fixture.dir.gateway.twice()).toEqual([]);
    const rows = await reportRows(fixture.dir.report);
    expect(rows.map((r) => [r.to, r.outcome])).toEqual(ALL.map((to) => [to, 'accepted']));
    const starts = (await journalLines(fixture.dir, campaign.identity.id)).filter(
      (l) => l.t === 'start',
    );
    expect(starts.map((l) => (l.t === 'start' ? l.run : 0))).toEqual([1, 2]);
  });

  it('batches the gateway refused were not sent: they count for nothing', async () => {
    fixture.dir.gateway.refuseFrom(0);
    const { result, sent } = await send();
    expect(sent).toBe(0);
    expect(fixture.dir.gateway.log).toEqual([]);
    expect(result.stopped?.stateUnwritable).toBeFalsy();
    expect((await reportRows(fixture.dir.report)).map((r) => r.outcome)).toEqual(
      ALL.map(() => 'failed'),
    );
  });

  it('a journal that fails mid-send stops it, saying what its --resume will find', async () => {
    injectDiskFault((op, path, data) =>
      op === 'write' && path.endsWith('journal.ndjson') && String(data).includes('"b":"1:2"')
        ? {
            error: Object.assign(new Error('ENOSPC: no space left on device, write'), {
              code: 'ENOSPC',
            }),
          }
        : undefined,
    );
    const { result, sent } = await send();
    injectDiskFault(undefined);
    expect(sent).toBe(2);
    expect(result.stopped).toMatchObject({ stateUnwritable: true });
    expect(result.stopped?.reason).toContain('no space left on device');
    expect(fixture.dir.gateway.log.map((m) => m.to)).toEqual(ALL.slice(0, 2));
    // Two answered and kept; three never sent, which the resume sends.
    expect(result.left).toEqual({
      settled: 2,
      inReport: 0,
      sentNoAnswer: 0,
      unposted: 0,
      toSend: RECORDS - 2,
      lost: [],
    });
  });
});
