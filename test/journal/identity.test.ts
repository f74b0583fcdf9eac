// Campaign identity: the same content sent the same way is one campaign, whatever its paths; names are checked.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  campaignIdentity,
  canonicalJson,
  contentHash,
  expandCampaignName,
  hashFile,
  type CampaignShape,
} from '../../src/journal/identity.js';
import { tempDir } from '../helpers/files.js';

const SHAPE: CampaignShape = {
  target: 'gateway',
  mapping: {},
  defaults: { gateway: 99700999, price: 0, customData: {} },
};
const INPUT = { sha256: 'a'.repeat(64), bytes: 10 };

describe('contentHash', () => {
  const base = contentHash([INPUT], SHAPE);
  it.each<[string, Parameters<typeof contentHash>]>([
    ['other input bytes', [[{ sha256: 'b'.repeat(64), bytes: 10 }], SHAPE]],
    ['the inputs in another order', [[INPUT, { ...INPUT, sha256: 'c'.repeat(64) }], SHAPE]],
    ['a second input', [[INPUT, INPUT], SHAPE]],
    ['the simulator as target', [[INPUT], { ...SHAPE, target: 'simulator' }]],
    ['another mapping', [[INPUT], { ...SHAPE, mapping: { to: 'phone' } }]],
    ['a template', [[INPUT], { ...SHAPE, template: 'Hi {{name}}' }]],
    ['a country', [[INPUT], { ...SHAPE, country: 'NO' }]],
    [
      'another sender',
      [[INPUT], { ...SHAPE, defaults: { ...SHAPE.defaults, originatorAddress: 'Shop' } }],
    ],
    [
      'custom data',
      [[INPUT], { ...SHAPE, defaults: { ...SHAPE.defaults, customData: { qos: 1 } } }],
    ],
    ['a delimiter', [[INPUT], { ...SHAPE, delimiter: ';' }]],
    ['--gsm-normalize (other bytes are sent)', [[INPUT], { ...SHAPE, gsmNormalize: true }]],
  ])('changes with %s', (_, args) => {
    expect(contentHash(...args)).not.toBe(base);
  });

  it('does not change with key order or undefined values', () => {
    const reordered = {
      defaults: { customData: {}, price: 0, gateway: 99700999 },
      mapping: {},
      target: 'gateway' as const,
      template: undefined,
      // Off is left out, so a campaign keeps the ID it had before the flag existed.
      gsmNormalize: undefined,
    };
    expect(contentHash([INPUT], reordered)).toBe(base);
  });
});

describe('hashFile', () => {
  it('gives the same hash for the same bytes at different paths', async () => {
    const dir = await tempDir();
    try {
      await writeFile(join(dir.path, 'a.csv'), 'to,text\n4741000000,hi\n');
      await writeFile(join(dir.path, 'b.csv'), 'to,text\n4741000000,hi\n');
      const [a, b] = await Promise.all([
        hashFile(join(dir.path, 'a.csv')),
        hashFile(join(dir.path, 'b.csv')),
      ]);
      expect(a).toEqual(b);
      expect(a.bytes).toBe(22);
    } finally {
      await dir.remove();
    }
  });
});

describe('campaignIdentity', () => {
  const hash = contentHash([INPUT], SHAPE);
  it('from content: a 16-character ID, and MessageIds stem from it', () => {
    const id = campaignIdentity(hash);
    expect(id).toEqual({
      id: hash.slice(0, 16),
      contentHash: hash,
      stem: hash.slice(0, 10),
      named: false,
    });
  });
  it('from a name: the name is the ID, and the stem differs per name', () => {
    const mon = campaignIdentity(hash, 'oncall-mon');
    const tue = campaignIdentity(hash, 'oncall-tue');
    expect(mon).toMatchObject({ id: 'oncall-mon', named: true, contentHash: hash });
    expect(mon.stem).toMatch(/^[0-9a-f]{10}$/);
    expect(mon.stem).not.toBe(tue.stem);
  });
});

describe('expandCampaignName', () => {
  const now = new Date(2026, 10, 23, 4, 5, 6);
  it.each([
    ['oncall-{date}', 'x.csv', 'oncall-2026-11-23'],
    ['{name}-{time}', 'dir/tonight.csv', 'tonight-040506'],
    ['{name}', '-', 'stdin'],
    ['my campaign', 'x.csv', 'my_campaign'],
  ])('%s for %s is %s', (template, input, expected) => {
    expect(expandCampaignName(template, input, now)).toBe(expected);
  });
  it.each(['', '.hidden', '-dash', 'x'.repeat(65)])('refuses %j with exit 2', (template) => {
    expect(() => expandCampaignName(template, 'x.csv', now)).toThrow(
      expect.objectContaining({ exitCode: 2, code: 'bad-campaign' }),
    );
  });
});

describe('canonicalJson', () => {
  it.each<[unknown, string]>([
    [{ b: 1, a: [2, { d: 1, c: null }] }, '{"a":[2,{"c":null,"d":1}],"b":1}'],
    [{ a: undefined, b: 'x' }, '{"b":"x"}'],
    ['text', '"text"'],
    [[], '[]'],
  ])('%j → %s', (value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });
});
