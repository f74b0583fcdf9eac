// User-given MessageIds kept as digests: a repeat is found within a set, across a set and the one
// it was started over, and across parts merged by their recorded digests.
import { describe, expect, it } from 'vitest';
import { DigestSet } from '../../src/validate/digest.js';
import { IdSet } from '../../src/validate/ids.js';

describe('IdSet', () => {
  it('adds an id once: a repeat, of any id, is refused', () => {
    const ids = new IdSet();
    for (const id of ['a', 'b', '', 'ab', 'a\u0000b', 'Привет']) expect(ids.add(id)).toBe(true);
    for (const id of ['a', 'b', '', 'ab', 'a\u0000b', 'Привет']) expect(ids.add(id)).toBe(false);
    expect(ids.add('c')).toBe(true);
  });

  it('refuses an id the set it was started over holds, and leaves that set as it was', () => {
    const earlier = new IdSet();
    earlier.add('one');
    const part = new IdSet(earlier, true);
    expect(part.add('one')).toBe(false);
    expect(part.add('two')).toBe(true);
    expect(earlier.add('two')).toBe(true);
  });

  it('records the digests it added, in order, for another set to check and merge', () => {
    const part = new IdSet(undefined, true);
    for (let i = 0; i < 200; i++) part.add(`id-${i}`);
    part.add('id-7');
    const digests = part.digests();
    expect(digests.length).toBe(200 * 4);

    const main = new IdSet();
    main.add('other');
    expect(main.holdsAny(digests)).toBe(false);
    main.addDigests(digests);
    expect(main.holdsAny(digests.subarray(4 * 150, 4 * 151))).toBe(true);
    expect(main.add('id-150')).toBe(false);
    expect(main.add('id-200')).toBe(true);
    expect(new IdSet().digests().length).toBe(0);
  });
});

describe('DigestSet.has', () => {
  it('finds what was added, through growth, and nothing else', () => {
    const set = new DigestSet();
    expect(set.has(new Int32Array(4))).toBe(false);
    const words = new Int32Array(4 * 3000);
    for (let i = 1; i <= 3000; i++) words.set([i * 7919, i, -i, i % 3], (i - 1) * 4);
    for (let at = 0; at < words.length; at += 8) set.add(words, at);
    for (let at = 0; at < words.length; at += 4) expect(set.has(words, at)).toBe(at % 8 === 0);
    expect(set.has(new Int32Array(4))).toBe(false);
    set.add(new Int32Array(4));
    expect(set.has(new Int32Array(4))).toBe(true);
  });
});
