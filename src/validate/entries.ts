// Turns a built record into what sendLoop() consumes: a serialised message, or a decided final row.
import type { MessageResult, RowResult } from '../message/outcome.js';
import { MALFORMED_FIELD } from './checker.js';
import type { BuiltRecord, CampaignBatch } from './types.js';

/** What the report says of a record's text, whatever becomes of it (segments, encoding, normalized). */
export type TextColumns = Pick<RowResult, 'segments' | 'encoding' | 'normalized'>;

/** What sendLoop() consumes: a message to send (already serialised), or a record decided beforehand. */
export type Entry =
  | ({ kind: 'message'; row: number; to: string; messageId: string; json: string } & TextColumns)
  | ({
      kind: 'final';
      row: number;
      to: string;
      messageId: string;
      result: MessageResult;
      attempts?: number;
      /** Settled by an earlier run (resume): reported, but not this run's work. */
      earlier?: boolean;
    } & TextColumns);

export function entryOf({ record, built, skipped }: BuiltRecord): Entry {
  // A row that could not be read has no text to count: its report row says none.
  const unread = !built.ok && built.problems.some((p) => p.field === MALFORMED_FIELD);
  const text: TextColumns = unread
    ? {}
    : { segments: built.text.segments, encoding: built.text.encoding };
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
