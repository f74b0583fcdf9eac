// The spool round trip at campaign scale: every entry back as written, in pieces a V8 string of
// regular size can hold (a larger one waits for a full collection, and held 40 MB at 1M records).
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry } from '../../src/validate/entries.js';
import { readSpool, SpoolWriter } from '../../src/validate/spool.js';
import { lineChunks, TEXT_PIECE_BYTES } from '../../src/shared/files.js';
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
});
