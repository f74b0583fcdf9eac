// Delivery statuses earlier reports hold, carried into the report a resumed run writes afresh.
import { exists } from '../shared/files.js';
import { readableFormat } from '../report/format.js';
import { readReport } from '../report/read.js';
import { updateReport } from '../report/update.js';
import { DeliveryBook, DLR_COLUMNS, deliveryOfRow, messageIdOfRow } from './matching.js';

/**
 * The deliveries recorded in a campaign's earlier reports. A resumed run writes its report anew
 * from the journal, which knows nothing of delivery reports: without this, `--resume` would erase
 * every status the receiver or `dlr apply` had folded in (and `retry --include undelivered` would
 * find nothing). Reports that are gone or cannot be read back (JUnit) give nothing.
 */
export async function recordedDeliveries(reports: readonly string[]): Promise<DeliveryBook> {
  const book = new DeliveryBook();
  for (const path of new Set(reports)) {
    if (!readable(path) || !(await exists(path))) continue;
    for await (const row of readReport(path)) {
      // A CSV report without the column holds no delivery: a million rows need not be read.
      if (row.kind === 'header' && !row.columns.includes(DLR_COLUMNS[0])) break;
      if (row.kind !== 'row') continue;
      const id = messageIdOfRow(row.values);
      const delivery = deliveryOfRow(row.values);
      if (id !== undefined && delivery) book.keep(id, delivery);
    }
  }
  return book;
}

/** Writes the deliveries into the report's rows by MessageId; the caller holds the report's lock. */
export async function restoreDeliveries(reportPath: string, book: DeliveryBook): Promise<void> {
  if (book.size === 0 || !readable(reportPath)) return;
  await updateReport(reportPath, DLR_COLUMNS, (row) => {
    const id = messageIdOfRow(row);
    const delivery = id === undefined ? undefined : book.get(id);
    return delivery ? { deliveryStatus: delivery.status, deliveredAt: delivery.at } : undefined;
  });
}

function readable(path: string): boolean {
  try {
    readableFormat(path);
    return true;
  } catch {
    return false;
  }
}
