// A resume keeps the delivery reports the earlier report holds: read before this run writes the report afresh, written back once it is complete; a campaign that starts has none to keep.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  earlierDeliveries,
  restoreEarlierDeliveries,
} from '../../../src/campaign/steps/deliveries.js';
import { journaledSend } from '../../../src/campaign/steps/journaled-send.js';
import { markRunning } from '../../../src/campaign/steps/running.js';
import { DLR_COLUMNS } from '../../../src/dlr/matching.js';
import { updateReport } from '../../../src/report/update.js';
import { mobile } from '../../helpers/files.js';
import {
  ready,
  reportRows,
  sendWhole,
  stepDir,
  stepRun,
  type Ready,
  type StepDir,
} from '../../helpers/step-run-3.js';

/** One message a batch, and a gateway that refuses is not waited for. */
const STEADY = ['--batch-size', '1', '--concurrency', '1', '--retries', '0', '--outage-grace', '0'];
const DELIVERED_AT = '2026-01-02T03:00:00.000Z';

let dir: StepDir;
let taken: Ready | undefined;

beforeEach(async () => {
  dir = await stepDir(3);
});
afterEach(async () => {
  await taken?.close();
  taken = undefined;
  await dir.remove();
});

/**
 * A first run the gateway stops after two messages, whose report then has a delivery report for
 * each message accepted (as `dlr apply` folds them in); the MessageIds delivered.
 */
async function stoppedAndDelivered(): Promise<string[]> {
  dir.gateway.refuseFrom(2);
  await sendWhole(dir, STEADY);
  dir.gateway.refuseFrom(undefined);
  const delivered = dir.gateway.log.map((m) => m.messageId);
  await updateReport(dir.report, DLR_COLUMNS, (row) =>
    delivered.includes(String(row['messageId']))
      ? { deliveryStatus: 'DELIVRD', deliveredAt: DELIVERED_AT }
      : undefined,
  );
  return delivered;
}

describe('earlierDeliveries', () => {
  it('a campaign that starts continues no journal: it keeps nothing', async () => {
    taken = await ready(await stepRun(dir, STEADY));
    expect(taken.settled.journal).toBeUndefined();
    expect(await earlierDeliveries(taken.hold, taken.settled)).toBeUndefined();
  });

  it('a resume reads the deliveries of the newest report, by MessageId', async () => {
    const delivered = await stoppedAndDelivered();
    taken = await ready(await stepRun(dir, [...STEADY, '--resume']));
    const book = await earlierDeliveries(taken.hold, taken.settled);
    expect(book?.size).toBe(2);
    for (const id of delivered) {
      expect(book?.get(id)).toMatchObject({ status: 'DELIVRD', at: DELIVERED_AT });
    }
  });
  it('only the newest report’s: an older one may be from before a --force run', async () => {
    const older = dir.report;
    const newer = `${dir.path}/second.csv`;
    dir.gateway.refuseFrom(1);
    await sendWhole(dir, STEADY);
    dir.gateway.refuseFrom(2);
    await sendWhole(dir, [...STEADY, '--resume', '--report', newer]);
    dir.gateway.refuseFrom(undefined);
    const first = dir.gateway.log[0]!.messageId;
    const mark = (path: string, status: string) =>
      updateReport(path, DLR_COLUMNS, (row) =>
        row['messageId'] === first
          ? { deliveryStatus: status, deliveredAt: DELIVERED_AT }
          : undefined,
      );
    await mark(older, 'EXPIRED');
    await mark(newer, 'DELIVRD');
    taken = await ready(
      await stepRun(dir, [...STEADY, '--resume', '--report', `${dir.path}/third.csv`]),
    );
    expect(taken.hold.found.previous?.reports).toEqual([older, newer]);
    const book = await earlierDeliveries(taken.hold, taken.settled);
    expect(book?.size).toBe(1);
    expect(book?.get(first)?.status).toBe('DELIVRD');
  });
});

describe('restoreEarlierDeliveries', () => {
  it('writes them back into the report the resume wrote afresh, the rest untouched', async () => {
    const delivered = await stoppedAndDelivered();
    const run = await stepRun(dir, [...STEADY, '--resume']);
    taken = await ready(run);
    const { campaign, hold, settled, gateway } = taken;
    await markRunning(run, campaign, hold, gateway.sentTo);
    const deliveries = await earlierDeliveries(hold, settled);
    await journaledSend(run, campaign, hold, settled, deliveries, gateway.client);
    // Written afresh from the journal, the report knows nothing of deliveries until now.
    expect((await reportRows(dir.report)).map((row) => row.deliveryStatus)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    await restoreEarlierDeliveries(campaign, deliveries);
    const rows = await reportRows(dir.report);
    expect(rows.map((row) => [row.to, row.outcome, row.deliveryStatus, row.deliveredAt])).toEqual([
      [mobile(0), 'accepted', 'DELIVRD', DELIVERED_AT],
      [mobile(1), 'accepted', 'DELIVRD', DELIVERED_AT],
      [mobile(2), 'accepted', '', ''],
    ]);
    expect(rows.slice(0, 2).map((row) => row.messageId)).toEqual(delivered);
  });

  it('nothing to keep leaves the report as the run wrote it', async () => {
    const run = await stepRun(dir, STEADY);
    taken = await ready(run);
    const { campaign, hold, settled, gateway } = taken;
    await markRunning(run, campaign, hold, gateway.sentTo);
    await journaledSend(run, campaign, hold, settled, undefined, gateway.client);
    const before = await reportRows(dir.report);
    await restoreEarlierDeliveries(campaign, undefined);
    expect(await reportRows(dir.report)).toEqual(before);
    expect(Object.keys(before[0]!)).not.toContain('deliveryStatus');
  });
});
