// Turns a built record into what send() consumes: a serialised message, or a decided final row.
import type { BuiltRecord } from '../message/campaign.js';
import type { Entry, TextColumns } from './send.js';

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

/** Built records as send() takes them: a chunk each. */
export async function* toEntries(records: AsyncIterable<BuiltRecord>): AsyncGenerator<Entry[]> {
  for await (const built of records) yield [entryOf(built)];
}
