// Turns a built record into what send() consumes: a serialised message, or a decided final row.
import type { BuiltRecord, CampaignBatch } from './reader.js';
import type { Entry, TextColumns } from '../send/send.js';

export function entryOf({ record, built, skipped }: BuiltRecord): Entry {
  const text: TextColumns = { segments: built.text.segments, encoding: built.text.encoding };
  if (built.ok && built.normalized) text.normalized = built.normalized.replaced;
  if (built.ok && skipped === undefined) {
    return {
      kind: 'message',
      row: record.row,
      to: built.to,
      messageId: built.message.MessageId ?? '',
      json: JSON.stringify(built.message),
      ...text,
    };
  }
  const messageId = built.ok ? (built.message.MessageId ?? '') : built.messageId;
  const error =
    skipped ??
    (built.ok
      ? ''
      : `${record.file}:${record.line}: ${built.problems.map((p) => `${p.field}: ${p.reason}`).join('; ')}`);
  return {
    kind: 'final',
    row: record.row,
    to: built.to,
    messageId,
    result: { outcome: skipped !== undefined ? 'skipped' : 'invalid', error },
    ...text,
  };
}

/** The entries of a campaign read without worker threads (whose parts come as spool lines). */
export async function* toEntries(batches: AsyncIterable<CampaignBatch>): AsyncGenerator<Entry[]> {
  for await (const batch of batches) {
    if (!Array.isArray(batch)) throw new Error('parts validated by worker threads are spooled');
    yield batch.map(entryOf);
  }
}
