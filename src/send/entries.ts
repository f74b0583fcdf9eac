// Turns built records into what send() consumes: messages to send, invalid ones already decided.
import type { BuiltRecord } from '../message/campaign.js';
import type { Entry } from './send.js';

export async function* toEntries(records: AsyncIterable<BuiltRecord>): AsyncGenerator<Entry> {
  for await (const { record, built, skipped } of records) {
    if (skipped !== undefined) {
      yield {
        kind: 'final',
        row: record.row,
        to: built.to,
        messageId: built.ok ? (built.message.MessageId ?? '') : built.messageId,
        result: { outcome: 'skipped', error: skipped },
      };
      continue;
    }
    if (built.ok) {
      yield { kind: 'message', row: record.row, to: built.to, message: built.message };
      continue;
    }
    const error = built.problems.map((p) => `${p.field}: ${p.reason}`).join('; ');
    yield {
      kind: 'final',
      row: record.row,
      to: built.to,
      messageId: built.messageId,
      result: { outcome: 'invalid', error: `${record.file}:${record.line}: ${error}` },
    };
  }
}
