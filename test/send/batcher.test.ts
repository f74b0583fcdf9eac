// batches(): the send loop's batches cut from a stream of entry chunks: full batches of the size,
// one last partial batch, never an empty one, decided records passed on in order, pulled lazily.
import { describe, expect, it } from 'vitest';
import { batches } from '../../src/send/batcher.js';
import type { MessageEntry } from '../../src/send/types.js';
import type { Entry } from '../../src/validate/entries.js';

const message = (row: number): MessageEntry => ({
  kind: 'message',
  row,
  to: `4741${String(row).padStart(6, '0')}`,
  messageId: `m-${row}`,
  json: `{"MessageId":"m-${row}"}`,
});

const final = (row: number): Entry => ({
  kind: 'final',
  row,
  to: '',
  messageId: `x-${row}`,
  result: { outcome: 'invalid', error: 'to: not a phone number' },
});

const messages = (first: number, last: number): MessageEntry[] =>
  Array.from({ length: last - first + 1 }, (_, i) => message(first + i));

/** The chunks as a stream, counting how many were read. */
function streamOf(chunks: readonly (readonly Entry[])[]) {
  const stream = {
    read: 0,
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) {
        await Promise.resolve();
        stream.read++;
        yield chunk;
      }
    },
  };
  return stream;
}

async function cut(chunks: readonly (readonly Entry[])[], size: number) {
  const finals: number[] = [];
  const taken: MessageEntry[][] = [];
  // Held, as workers hold theirs while the next batch is cut: each batch is an array of its own.
  for await (const batch of batches(streamOf(chunks), size, (entry) => finals.push(entry.row))) {
    taken.push(batch);
  }
  return { rows: taken.map((batch) => batch.map((entry) => entry.row)), finals };
}

const rowsFrom = (first: number, last: number): number[] => messages(first, last).map((m) => m.row);

describe('batches', () => {
  it.each<[string, Entry[][], number, number[][]]>([
    ['a batch size of 1: a batch a message', [messages(1, 3)], 1, [[1], [2], [3]]],
    [
      'exactly the size: one batch, no empty one after it',
      [messages(1, 100)],
      100,
      [rowsFrom(1, 100)],
    ],
    [
      'more than the size: full batches, then the last partial one',
      [messages(1, 250)],
      100,
      [rowsFrom(1, 100), rowsFrom(101, 200), rowsFrom(201, 250)],
    ],
    ['fewer than the size: one partial batch', [messages(1, 99)], 100, [rowsFrom(1, 99)]],
    ['an empty stream: no batch at all', [], 100, []],
    ['empty chunks: no batch at all', [[], []], 100, []],
    [
      'batches across chunks of any size',
      [messages(1, 2), [], messages(3, 7), messages(8, 8)],
      3,
      [
        [1, 2, 3],
        [4, 5, 6],
        [7, 8],
      ],
    ],
  ])('%s', async (_what, chunks, size, expected) => {
    const { rows, finals } = await cut(chunks, size);
    expect(rows).toEqual(expected);
    expect(finals).toEqual([]);
  });

  it('hands decided records on, never in a batch, and makes no batch of them alone', async () => {
    expect(await cut([[final(1), final(2)], [final(3)]], 2)).toEqual({
      rows: [],
      finals: [1, 2, 3],
    });
    expect(await cut([[message(1), final(2), message(3), final(4), message(5)]], 2)).toEqual({
      rows: [[1, 3], [5]],
      finals: [2, 4],
    });
  });

  it('hands decided records on between the batches around them, as they come', async () => {
    const log: string[] = [];
    const chunks = [[message(1), final(2)], [message(3)], [final(4), message(5)]];
    const stream = batches(streamOf(chunks), 2, (entry) => log.push(`final ${entry.row}`));
    for await (const batch of stream) log.push(`batch ${batch.map((e) => e.row).join(',')}`);
    expect(log).toEqual(['final 2', 'batch 1,3', 'final 4', 'batch 5']);
  });

  it('reads the stream only as far as the batch taken needs', async () => {
    const stream = streamOf([[message(1)], [message(2)], [message(3)], [message(4)]]);
    const taken = batches(stream, 2, () => undefined)[Symbol.asyncIterator]();
    const take = async () => {
      const next = await taken.next();
      return next.done ? 'done' : next.value.map((entry) => entry.row);
    };
    expect(await take()).toEqual([1, 2]);
    expect(stream.read).toBe(2);
    expect(await take()).toEqual([3, 4]);
    expect(stream.read).toBe(4);
    expect(await take()).toBe('done');
  });
});
