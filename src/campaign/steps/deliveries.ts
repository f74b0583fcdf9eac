// The delivery reports a resume keeps: read from the report the earlier run wrote before this run
// writes it afresh (it may be the same file), and those the store keeps (a database's receivers'),
// and written back once it is complete.
import { recordedDeliveries, restoreDeliveries } from '../../dlr/carry.js';
import type { CampaignStore } from '../../journal/store.js';
import type { RunHold } from './hold.js';
import type { Validated } from './planned.js';
import type { Settled } from './settled.js';

/** What earlier reports recorded of delivery, by MessageId. */
export type Deliveries = Awaited<ReturnType<typeof recordedDeliveries>>;

/**
 * The deliveries the newest earlier report recorded, when this run continues a journal: the newest
 * has them all (each run writes its report complete); older ones may be from before a --force run,
 * whose same MessageIds they would wrongly settle. With them, those the store keeps for the
 * campaign: a record they prove the gateway had is never sent again, even with --retry-unknown.
 */
export async function earlierDeliveries(
  hold: RunHold,
  settled: Settled,
  kept?: { store: CampaignStore; campaign: Validated },
): Promise<Deliveries | undefined> {
  if (!settled.journal) return undefined;
  const newest = hold.found.previous?.reports.at(-1);
  const book = await recordedDeliveries(newest === undefined ? [] : [newest]);
  const shelf = kept?.store.deliveries;
  if (kept === undefined || shelf === undefined) return book;
  for await (const report of shelf.read(kept.campaign.identity.id)) book.add(report);
  return book;
}

/** The earlier deliveries written back into this run's report, now complete. */
export async function restoreEarlierDeliveries(
  campaign: Validated,
  deliveries: Deliveries | undefined,
): Promise<void> {
  if (deliveries) await restoreDeliveries(campaign.reportPath, deliveries);
}
