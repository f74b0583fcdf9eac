// The digests behind --dedupe and the dry run's repeats: equal messages match, different ones do not.
import { describe, expect, it } from 'vitest';
import { DigestSet, digestMessage } from '../../src/message/digest.js';

function digest(to: string, text: string): Int32Array {
  const out = new Int32Array(4);
  digestMessage(to, text, out);
  return out;
}

describe('digestMessage', () => {
  it('is the same for the same recipient and text, and differs where they split', () => {
    expect(digest('4741000001', 'Hei')).toEqual(digest('4741000001', 'Hei'));
    expect(digest('4741000001', 'Hei')).not.toEqual(digest('474100000', '1Hei'));
    expect(digest('', '')).not.toEqual(digest('', '\0'));
    expect(digest('47', 'Привет 👋')).not.toEqual(digest('47', 'Привет 👍'));
  });

  it('gives 300,000 distinct messages 300,000 distinct digests', () => {
    const set = new DigestSet();
    const out = new Int32Array(4);
    let added = 0;
    for (let i = 0; i < 300_000; i++) {
      digestMessage(`47${41000000 + (i % 1000)}`, `Hello number ${Math.floor(i / 1000)}`, out);
      if (set.add(out)) added++;
    }
    expect(added).toBe(300_000);
  });
});

describe('DigestSet', () => {
  it('says whether a digest was new, through growth, the all-zero digest included', () => {
    const set = new DigestSet();
    const words = new Int32Array(4 * 5000);
    for (let i = 0; i < 5000; i++) words.set([i * 7919, i, -i, i % 3], i * 4);
    for (let at = 0; at < words.length; at += 4) expect(set.add(words, at)).toBe(true);
    for (let at = 0; at < words.length; at += 4) expect(set.add(words, at)).toBe(false);
    const zero = new Int32Array(4);
    expect(set.add(zero)).toBe(false); // i = 0 was all zeros
    expect(new DigestSet().add(zero)).toBe(true);
  });
});
