// mergeLayers: default < file < env < flag, key by key; undefined never overrides; customData per key.
import { describe, expect, it } from 'vitest';
import { mergeLayers, type Layer } from '../../src/config/merge.js';

const FILE = '/home/ops/.sms-sendrc.json';

const defaults: Layer = {
  source: 'default',
  values: {
    gateway: 99700999,
    price: 0,
    batchSize: 100,
    concurrency: 4,
    timeout: '30s',
    retries: 3,
  },
};

describe('mergeLayers', () => {
  it('returns nothing for no layers', () => {
    expect(mergeLayers([])).toEqual({ values: {}, sources: {} });
  });

  it('suppression lists add up over the layers, each path once', () => {
    const merged = mergeLayers([
      defaults,
      { source: FILE, values: { suppress: ['/home/ops/optouts.csv'] } },
      { source: `${FILE}#profiles.news`, values: { suppress: ['/home/ops/news-optouts.txt'] } },
      { source: 'flag', values: { suppress: ['today.txt', '/home/ops/optouts.csv'] } },
    ]);
    expect(merged.values.suppress).toEqual([
      '/home/ops/optouts.csv',
      '/home/ops/news-optouts.txt',
      'today.txt',
    ]);
  });

  it('applies default < file < env < flag, recording where each value came from', () => {
    const merged = mergeLayers([
      defaults,
      {
        source: FILE,
        values: { batchSize: 50, concurrency: 2, endpoint: 'https://file.example/rest' },
      },
      { source: 'env', values: { concurrency: 8, username: 'env-user' } },
      { source: 'flag', values: { concurrency: 16, timeout: '5s' } },
    ]);
    expect(merged.values).toEqual({
      gateway: 99700999,
      price: 0,
      batchSize: 50,
      concurrency: 16,
      timeout: '5s',
      retries: 3,
      endpoint: 'https://file.example/rest',
      username: 'env-user',
    });
    expect(merged.sources).toEqual({
      gateway: 'default',
      price: 'default',
      batchSize: FILE,
      concurrency: 'flag',
      timeout: 'flag',
      retries: 'default',
      endpoint: FILE,
      username: 'env',
    });
  });

  it.each([
    ['file', [defaults, { source: FILE, values: { retries: 1 } }], 1, FILE],
    [
      'env over file',
      [
        defaults,
        { source: FILE, values: { retries: 1 } },
        { source: 'env', values: { retries: 2 } },
      ],
      2,
      'env',
    ],
    [
      'flag over env',
      [
        defaults,
        { source: FILE, values: { retries: 1 } },
        { source: 'env', values: { retries: 2 } },
        { source: 'flag', values: { retries: 0 } },
      ],
      0,
      'flag',
    ],
    ['flag over default', [defaults, { source: 'flag', values: { retries: 9 } }], 9, 'flag'],
  ] as [string, Layer[], number, string][])('%s', (_label, layers, retries, source) => {
    const merged = mergeLayers(layers);
    expect(merged.values.retries).toBe(retries);
    expect(merged.sources.retries).toBe(source);
  });

  it('never lets an undefined value override, nor records its source', () => {
    const merged = mergeLayers([
      defaults,
      { source: FILE, values: { batchSize: 50, originatorAddress: 'Intele' } },
      { source: 'env', values: { batchSize: undefined, originatorAddress: undefined } },
      { source: 'flag', values: { batchSize: undefined, rate: undefined } },
    ]);
    expect(merged.values.batchSize).toBe(50);
    expect(merged.values.originatorAddress).toBe('Intele');
    expect('rate' in merged.values).toBe(false);
    expect(merged.sources.batchSize).toBe(FILE);
    expect(merged.sources.originatorAddress).toBe(FILE);
    expect(merged.sources.rate).toBeUndefined();
  });

  it('lets falsy but defined values override (0, empty string)', () => {
    const merged = mergeLayers([
      { source: FILE, values: { price: 500, retries: 3, category: 'billing' } },
      { source: 'flag', values: { price: 0, retries: 0, category: '' } },
    ]);
    expect(merged.values).toEqual({ price: 0, retries: 0, category: '' });
    expect(merged.sources).toEqual({ price: 'flag', retries: 'flag', category: 'flag' });
  });

  it('merges customData key by key across layers', () => {
    const merged = mergeLayers([
      defaults,
      { source: FILE, values: { customData: { qos: 2, team: 'ops', region: 'no' } } },
      { source: 'env', values: { customData: { region: 'se' } } },
      { source: 'flag', values: { customData: { qos: 1, campaign: 'spring' } } },
    ]);
    expect(merged.values.customData).toEqual({
      qos: 1,
      team: 'ops',
      region: 'se',
      campaign: 'spring',
    });
    expect(merged.sources.customData).toBe('flag');
  });

  it('keeps the file’s customData when a later layer leaves it undefined', () => {
    const merged = mergeLayers([
      { source: FILE, values: { customData: { qos: 2 } } },
      { source: 'flag', values: { customData: undefined } },
    ]);
    expect(merged.values.customData).toEqual({ qos: 2 });
    expect(merged.sources.customData).toBe(FILE);
  });

  it('does not modify the layers it merges', () => {
    const file: Layer = { source: FILE, values: { customData: { qos: 2 }, batchSize: 10 } };
    const flag: Layer = { source: 'flag', values: { customData: { team: 'ops' }, batchSize: 20 } };
    mergeLayers([file, flag]);
    expect(file.values).toEqual({ customData: { qos: 2 }, batchSize: 10 });
    expect(flag.values).toEqual({ customData: { team: 'ops' }, batchSize: 20 });
  });

  it('follows the order of the layers given, not the names of their sources', () => {
    const merged = mergeLayers([
      { source: 'flag', values: { retries: 1 } },
      { source: 'default', values: { retries: 3 } },
    ]);
    expect(merged.values.retries).toBe(3);
    expect(merged.sources.retries).toBe('default');
  });
});
