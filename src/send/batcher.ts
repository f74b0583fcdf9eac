// Batches of messages from a stream of entry chunks, pulling only as fast as batches are taken.
import type { Entry } from '../validate/entries.js';

type MessageEntry = Extract<Entry, { kind: 'message' }>;

/**
 * Entries arrive in chunks (a spool read, a list), so the stream costs one await per chunk, not
 * per record. Decided records are handed to `onFinal` in stream order as they are passed, between
 * the batches around them, as when they arrived one at a time.
 */
export async function* batches(
  chunks: AsyncIterable<readonly Entry[]>,
  size: number,
  onFinal: (entry: Exclude<Entry, MessageEntry>) => void,
): AsyncGenerator<MessageEntry[]> {
  let batch: MessageEntry[] = [];
  for await (const chunk of chunks) {
    for (const entry of chunk) {
      if (entry.kind === 'final') {
        onFinal(entry);
        continue;
      }
      batch.push(entry);
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}
