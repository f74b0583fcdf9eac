// The spool round trip at campaign scale: every entry back as written, in pieces a V8 string of
// regular size can hold (a larger one waits for a full collection, and held 40 MB at 1M records).
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry } from '../../src/validate/entries.js';
import { readSpool, SpoolUnreadableError, SpoolWriter } from '../../src/validate/spool.js';
import { lineBlocks, lineChunks, TEXT_PIECE_BYTES } from '../../src/shared/files.js';
import { tempDir } from '../helpers/files.js';
import { messageEntries } from '../helpers/reliability.js';

const LARGE_OBJECT_BYTES = 128 * 1024;

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

// Texts of every width: ASCII, Nordic letters (one byte in V8, two in UTF-8), emoji (two-byte V8
// strings, four UTF-8 bytes), and a long one, so pieces split inside multi-byte characters.
const TEXTS = ['Hello', 'Hei Åse, møtet er flyttet', 'Vi sees 🎉🎉', 'x'.repeat(900) + '✓'];
const ENTRIES: Entry[] = messageEntries(6000, 'sp').map((entry, i) =>
  entry.kind === 'message'
    ? { ...entry, json: JSON.stringify({ UserData: `${TEXTS[i % TEXTS.length]} ${i}` }) }
    : entry,
);

/** Every seventh record final (invalid), and one message longer than a block of the reader. */
const MIXED: Entry[] = ENTRIES.map((entry, i): Entry => {
  if (i === 2500 && entry.kind === 'message') {
    return { ...entry, json: JSON.stringify({ UserData: 'ø'.repeat(70_000) }) };
  }
  if (i % 7 !== 3) return entry;
  const { row, to, messageId } = entry;
  return { kind: 'final', row, to, messageId, result: { outcome: 'invalid', error: `bad ${row}` } };
});

async function spoolOf(name: string, entries: readonly Entry[]): Promise<string> {
  const path = join(dir.path, name);
  const writer = await SpoolWriter.create(path);
  for (const entry of entries) writer.add(entry);
  await writer.close();
  return path;
}

describe('the spool', () => {
  it('gives back every entry as written, in order', async () => {
    const path = join(dir.path, 'round-trip.spool');
    const writer = await SpoolWriter.create(path);
    for (const entry of ENTRIES) writer.add(entry);
    await writer.close();
    const back: Entry[] = [];
    for await (const chunk of readSpool(path)) back.push(...chunk);
    expect(back).toEqual(ENTRIES);
  });

  it('is read in pieces of lines that stay regular-size V8 strings', async () => {
    const path = join(dir.path, 'pieces.spool');
    const writer = await SpoolWriter.create(path);
    for (const entry of ENTRIES) writer.add(entry);
    await writer.close();
    const handle = await open(path, 'r');
    const sizes: number[] = [];
    try {
      for await (const lines of lineChunks(handle)) sizes.push(lines.join('\n').length);
    } finally {
      await handle.close();
    }
    expect(sizes.length).toBeGreaterThan(10);
    // At most two bytes a character, whatever the text.
    expect(Math.max(...sizes) * 2).toBeLessThan(LARGE_OBJECT_BYTES);
    expect(TEXT_PIECE_BYTES * 2).toBeLessThanOrEqual(LARGE_OBJECT_BYTES);
  });

  it('passes over the messages whose rows keep() turns down, and gives back the rest as written', async () => {
    const path = await spoolOf('kept.spool', MIXED);
    const keep = (row: number) => row % 3 === 0 || row === 2501;
    const back: Entry[] = [];
    for await (const chunk of readSpool(path, keep)) back.push(...chunk);
    const expected = MIXED.filter((e) => e.kind === 'final' || keep(e.row));
    expect(back).toEqual(expected);
    expect(back.some((e) => e.row === 2501 && e.kind === 'message')).toBe(true);
    // Final entries are always given back: keep() judges messages alone.
    expect(back.filter((e) => e.kind === 'final')).toHaveLength(
      MIXED.filter((e) => e.kind === 'final').length,
    );
  });
});

describe('a spool read back', () => {
  const SMALL = MIXED.slice(0, 12);
  /** The small spool's text with `change` made to it. */
  async function damaged(name: string, change: (text: string) => string | Buffer) {
    const path = await spoolOf(name, SMALL);
    const { readFile } = await import('node:fs/promises');
    await writeFile(path, change(await readFile(path, 'utf8')));
    return path;
  }
  const lines = (text: string) => text.split('\n');

  it.each([
    ['as zeros', (t: string) => Buffer.alloc(Buffer.byteLength(t)), /its last line is cut short/],
    ['cut in its last line', (t: string) => t.slice(0, -5), /its last line is cut short/],
    [
      'short of its last lines',
      (t: string) => lines(t).slice(0, 9).join('\n') + '\n',
      /9 of its 12 lines/,
    ],
    ['empty', () => '', /0 of its 12 lines/],
    [
      'with a block of zeros amid its lines',
      (t: string) => {
        const l = lines(t);
        l[3] = '\0'.repeat(l[3]!.length);
        return l.join('\n');
      },
      /zero bytes/,
    ],
    [
      'with zeros inside one message, its start and end as written',
      (t: string) => {
        const l = lines(t);
        l[2] = `${l[2]!.slice(0, 12)}${'\0'.repeat(5)}${l[2]!.slice(17)}`;
        return l.join('\n');
      },
      /zero bytes/,
    ],
    [
      'with zeros from the middle of one line into the next',
      (t: string) => {
        const text = lines(t);
        const at = text.slice(0, 2).join('\n').length + 20;
        return `${t.slice(0, at)}${'\0'.repeat(text[2]!.length)}${t.slice(at + text[2]!.length)}`;
      },
      /zero bytes/,
    ],
    [
      'with two lines swapped',
      (t: string) => {
        const l = lines(t);
        [l[1], l[2]] = [l[2]!, l[1]!];
        return l.join('\n');
      },
      /line \d+ is out of order/,
    ],
    ['with a row that is not a number', (t: string) => t.replace('M\t1\t', 'M\tx\t'), /line 1 is/],
  ])(
    '%s: refused before any of it is given back, whichever way it is read',
    async (name, change, says) => {
      const path = await damaged(`${name.replace(/\W+/g, '-')}.spool`, change);
      for (const keep of [undefined, () => true, () => false]) {
        const back: Entry[] = [];
        const reading = (async () => {
          for await (const chunk of readSpool(path, keep, SMALL.length)) back.push(...chunk);
        })();
        await expect(reading).rejects.toThrow(says);
        await expect(reading).rejects.toBeInstanceOf(SpoolUnreadableError);
      }
    },
  );

  it('gives back a whole spool with its count, and refuses another count', async () => {
    const path = await spoolOf('counted.spool', SMALL);
    const back: Entry[] = [];
    for await (const chunk of readSpool(path, undefined, SMALL.length)) back.push(...chunk);
    expect(back).toEqual(SMALL);
    const more = (async () => {
      for await (const chunk of readSpool(path, () => false, SMALL.length + 1)) void chunk;
    })();
    await expect(more).rejects.toThrow(`12 of its 13 lines`);
  });
});

describe('lineBlocks', () => {
  async function blocksOf(text: string): Promise<string[]> {
    const path = join(dir.path, `blocks-${text.length}.txt`);
    await writeFile(path, text);
    const handle = await open(path, 'r');
    const blocks: string[] = [];
    try {
      for await (const block of lineBlocks(handle)) blocks.push(block.toString('utf8'));
    } finally {
      await handle.close();
    }
    return blocks;
  }

  it.each([
    ['an empty file', ''],
    ['one line without its newline', 'only'],
    ['short lines', 'a\nbb\nccc\n'],
    ['a last line without its newline', 'a\nbb\nccc'],
    [
      'a line three blocks long between short ones',
      `a\n${'é'.repeat(TEXT_PIECE_BYTES * 1.5)}\nb\n`,
    ],
    [
      'lines across many blocks',
      Array.from({ length: 40_000 }, (_, i) => `line ${i} ✓`).join('\n'),
    ],
  ])('gives back %s whole, each block ending at a line', async (_what, text) => {
    const blocks = await blocksOf(text);
    expect(blocks.join('')).toBe(text);
    for (const block of blocks.slice(0, -1)) expect(block.endsWith('\n')).toBe(true);
    if (text === '') expect(blocks).toEqual([]);
  });
});
