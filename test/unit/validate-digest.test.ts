// The digests behind --dedupe and the dry run's repeats: equal messages match, different ones do not.
import { describe, expect, it } from 'vitest';
import { DigestSet, digestMessage } from '../../src/validate/digest.js';

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

  // Digests are kept in memory only, but a change of the function should be a decision: these are
  // its values for every tail length and for characters of one, two and three UTF-8 bytes.
  it.each([
    ['', '', [-1017536742, 1615118579, 1615118579, 1615118579]],
    ['4', '7', [-1217316855, 2032616938, 1123329811, 1123329811]],
    ['47', 'Hei', [1949759821, -490903696, 631865150, -488473109]],
    ['4741000001', 'Hei', [-1599488329, -922079170, 1426052691, -1568876642]],
    ['4741000001', 'Hello number 12345', [1120817871, 1234043697, -579305375, 441096643]],
    ['', '\u0000', [1894297848, -492575840, -492575840, -492575840]],
    ['47', 'Привет 👋', [-1357675675, 1842193456, 640246686, 740684866]],
    ['4741234567', 'xxxxxxxxxxxxx', [-836743468, 512982078, 1154838021, 1293063517]],
    ['474123456', '€', [-759749674, -356913447, 1327222676, 1037548921]],
  ])('digests %j and %j as it always has', (to, text, words) => {
    expect([...digest(to, text)]).toEqual(words);
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
    // Grown from 16,384 slots to 32,768 and 65,536 on the way: every digest moved is still found.
    const many = new DigestSet();
    const more = new Int32Array(4 * 40_000);
    for (let i = 0; i < 40_000; i++) more.set([i * 65_537, i, ~i, 1], i * 4);
    for (let at = 0; at < more.length; at += 4) expect(many.add(more, at)).toBe(true);
    for (let at = 0; at < more.length; at += 4) expect(many.add(more, at)).toBe(false);
    const zero = new Int32Array(4);
    expect(set.add(zero)).toBe(false); // i = 0 was all zeros
    expect(new DigestSet().add(zero)).toBe(true);
  });
});
