// Delivery reports a store keeps (a database shared by hosts), read into a book and laid over a
// report's rows as they are read: every host counts and draws what every receiver took.
import type { RowOverlay } from '../report/read.js';
import type { CampaignStore } from '../journal/store.js';
import { foldedCells } from './apply.js';
import { DeliveryBook, messageIdOfRow } from './matching.js';

/** The campaign's kept reports, each MessageId's winner; undefined when the store keeps none. */
export async function keptBook(
  store: CampaignStore,
  campaign: string,
): Promise<DeliveryBook | undefined> {
  if (store.deliveries === undefined) return undefined;
  const book = new DeliveryBook();
  for await (const report of store.deliveries.read(campaign)) book.add(report);
  return book;
}

/** The campaign's kept reports as an overlay; undefined when the store keeps none, or has none. */
export async function keptDeliveries(
  store: CampaignStore,
  campaign: string,
): Promise<RowOverlay | undefined> {
  const book = await keptBook(store, campaign);
  return book === undefined || book.size === 0 ? undefined : overlayOf(book);
}

/** Messages by the status of their winning report, most first. */
export function statusCounts(book: DeliveryBook): Record<string, number> {
  const counts = new Map<string, number>();
  for (const id of book.ids()) {
    const status = book.get(id)?.status;
    if (status !== undefined) counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
}

/** Each row as a fold of the book would leave it. */
export function overlayOf(book: DeliveryBook): RowOverlay {
  return (values) => {
    const id = messageIdOfRow(values);
    const delivery = id === undefined ? undefined : book.get(id);
    const cells = delivery && foldedCells(values, delivery);
    return cells ? { ...values, ...cells } : values;
  };
}
