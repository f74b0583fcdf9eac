// checkConfigFile: a valid file passes through; an invalid one reports every problem with its key path.
import { describe, expect, it } from 'vitest';
import { checkConfigFile, type ConfigProblem } from '../../src/config/schema.js';

function problemsOf(raw: unknown): ConfigProblem[] {
  const result = checkConfigFile(raw);
  if (result.ok) throw new Error(`expected problems, got ${JSON.stringify(result.value)}`);
  return result.problems;
}

const FULL = {
  endpoint: 'https://smsgw.intele.no/pushsms/rest',
  username: '12345',
  passwordFile: '/run/secrets/sms',
  passwordEnv: 'SMS_PW',
  gateway: 99700999,
  originatorAddress: 'Intele',
  price: 0,
  messageType: '00',
  validationPeriod: '2h',
  category: 'billing',
  deliveryReportUrl: 'https://example.com/dr?id=[$MSGID]',
  customData: { qos: 1 },
  serviceCode: 'SC',
  serviceDescription: 'desc',
  country: 'NO',
  suppress: ['optouts.csv', 'lists/unsubscribed.txt'],
  batchSize: 100,
  concurrency: 4,
  rate: 10,
  timeout: '30s',
  retries: 3,
  gsmNormalize: true,
  maxSegments: 3,
  pricePerSegment: { '47': 0.35, '+46': 0.4, default: 0.5 },
  currency: 'NOK',
  maxCost: 500,
  profiles: {
    ci: { endpoint: 'http://127.0.0.1:8080', batchSize: 10, retries: 0 },
    night: { rate: 0.5, timeout: 60 },
  },
};

describe('checkConfigFile: valid files', () => {
  it('accepts every setting and profiles', () => {
    expect(checkConfigFile(FULL)).toEqual({ ok: true, value: FULL });
  });

  it.each([
    ['an empty file', {}],
    ['gateway as a string', { gateway: '1933' }],
    ['price as a string', { price: '500' }],
    ['timeout in seconds', { timeout: 10 }],
    ['rate 0', { rate: 0 }],
    ['retries 0', { retries: 0 }],
    ['lower-case country', { country: 'se' }],
    ['an empty profile', { profiles: { quiet: {} } }],
    ['one price per segment', { pricePerSegment: 0.5 }],
    ['a free segment', { pricePerSegment: 0 }],
    ['only a default price', { pricePerSegment: { default: 0.5 } }],
    ['prices by three-digit calling codes', { pricePerSegment: { '358': 0.4, default: 0.5 } }],
    ['maxCost 0', { maxCost: 0, pricePerSegment: 1 }],
    ['gsmNormalize off', { gsmNormalize: false }],
  ])('accepts %s', (_label, raw) => {
    expect(checkConfigFile(raw)).toEqual({ ok: true, value: raw });
  });
});

describe('checkConfigFile: one problem, with its key path', () => {
  it.each<[string, string, string, unknown]>([
    [
      'endpoint not a URL',
      'endpoint',
      'must be an absolute URL such as https://host/path',
      { endpoint: 'smsgw.intele.no' },
    ],
    [
      'suppress as one string',
      'suppress',
      'must be a list of file paths, e.g. ["optouts.csv"]',
      { suppress: 'optouts.csv' },
    ],
    ['suppress with an empty path', 'suppress.0', 'must be a file path', { suppress: [''] }],
    ['batchSize 0', 'batchSize', 'must be at least 1', { batchSize: 0 }],
    [
      'pricePerSegment without a default',
      'pricePerSegment',
      'needs a "default" price for the calling codes it does not list, e.g. {"47": 0.35, "default": 0.5}',
      { pricePerSegment: { '47': 0.35 } },
    ],
    [
      'pricePerSegment by country name',
      'pricePerSegment',
      '"NO" is not a calling code (such as 47) or "default"',
      { pricePerSegment: { NO: 0.35, default: 0.5 } },
    ],
    [
      'pricePerSegment with a price as text',
      'pricePerSegment',
      'the price for "47" must be a number, 0 or more',
      { pricePerSegment: { '47': '0.35', default: 0.5 } },
    ],
    [
      'pricePerSegment negative',
      'pricePerSegment',
      'must not be negative',
      { pricePerSegment: -1 },
    ],
    [
      'pricePerSegment as text',
      'pricePerSegment',
      'must be a price such as 0.5, or prices by calling code with a default, e.g. {"47": 0.35, "default": 0.5}',
      { pricePerSegment: '0.5 NOK' },
    ],
    [
      'currency not a code',
      'currency',
      'must be a three-letter currency code such as NOK',
      { currency: 'kroner' },
    ],
    ['maxCost negative', 'maxCost', 'must not be negative', { maxCost: -1 }],
    ['maxCost as text', 'maxCost', 'must be a number', { maxCost: '500 NOK' }],
    ['maxSegments 0', 'maxSegments', 'must be at least 1', { maxSegments: 0 }],
    ['gsmNormalize as text', 'gsmNormalize', 'must be true or false', { gsmNormalize: 'yes' }],
    ['batchSize fractional', 'batchSize', 'must be a whole number', { batchSize: 1.5 }],
    ['batchSize as a string', 'batchSize', 'must be a number', { batchSize: '10' }],
    ['concurrency 0', 'concurrency', 'must be at least 1', { concurrency: 0 }],
    ['retries negative', 'retries', 'must not be negative', { retries: -1 }],
    ['rate negative', 'rate', 'must not be negative', { rate: -1 }],
    ['rate as a string', 'rate', 'must be a number', { rate: 'fast' }],
    ['gateway 0', 'gateway', 'must be a positive whole number such as 99700999', { gateway: 0 }],
    ['price negative', 'price', 'must be a whole number of øre, 0 or more', { price: -1 }],
    [
      'gateway a boolean',
      'gateway',
      'must be a positive whole number such as 99700999',
      { gateway: true },
    ],
    ['price a boolean', 'price', 'must be a whole number of øre, 0 or more', { price: false }],
    ['passwordEnv not a name', 'passwordEnv', 'must be a variable name', { passwordEnv: '1PASS' }],
    ['country three letters', 'country', 'must be a two-letter country code', { country: 'NOR' }],
    [
      'messageType one character',
      'messageType',
      'must be two characters such as "00", "10" or "11"',
      { messageType: '0' },
    ],
    ['unknown key', 'batchsize', 'unknown key (did you mean "batchSize"?)', { batchsize: 10 }],
    ['password key typo', 'pasword', 'unknown key (did you mean "password"?)', { pasword: 'x' }],
    [
      'a slip of two letters',
      'concurrancy',
      'unknown key (did you mean "concurrency"?)',
      { concurrancy: 2 },
    ],
    ['nothing near', 'colour', 'unknown key', { colour: 'red' }],
    [
      'profile value',
      'profiles.ci.batchSize',
      'must be at least 1',
      { profiles: { ci: { batchSize: 0 } } },
    ],
    [
      'unknown key in a profile',
      'profiles.ci.batchsize',
      'unknown key (did you mean "batchSize"?)',
      { profiles: { ci: { batchsize: 10 } } },
    ],
    [
      'profiles inside a profile',
      'profiles.ci.profiles',
      'unknown key',
      { profiles: { ci: { profiles: {} } } },
    ],
  ])('%s → %s: %s', (_label, path, message, raw) => {
    expect(problemsOf(raw)).toEqual([{ path, message }]);
  });

  it.each<[string, string, unknown]>([
    ['username over 128', 'username', { username: 'u'.repeat(129) }],
    ['password over 128', 'password', { password: 'p'.repeat(129) }],
    ['originatorAddress empty', 'originatorAddress', { originatorAddress: '' }],
    ['originatorAddress over 25', 'originatorAddress', { originatorAddress: '1'.repeat(26) }],
    ['category over 32', 'category', { category: 'c'.repeat(33) }],
    ['serviceCode over 128', 'serviceCode', { serviceCode: 's'.repeat(129) }],
    ['serviceDescription over 512', 'serviceDescription', { serviceDescription: 'd'.repeat(513) }],
    ['deliveryReportUrl over 2048', 'deliveryReportUrl', { deliveryReportUrl: 'u'.repeat(2049) }],
    ['customData not an object', 'customData', { customData: 5 }],
    ['timeout negative', 'timeout', { timeout: -1 }],
    ['profiles not an object', 'profiles', { profiles: 'ci' }],
  ])('%s → a problem at %s', (_label, path, raw) => {
    const found = problemsOf(raw);
    expect(found.map((p) => p.path)).toEqual([path]);
    expect(found[0]!.message).not.toBe('');
  });
});

describe('checkConfigFile: every problem at once', () => {
  it('reports problems in several keys and in profiles together', () => {
    const found = problemsOf({
      batchSize: 0,
      retries: -2,
      endpoint: 'nope',
      profiles: { ci: { concurrency: 0, rate: -1 } },
    });
    expect(found).toHaveLength(5);
    expect(found).toEqual(
      expect.arrayContaining([
        { path: 'batchSize', message: 'must be at least 1' },
        { path: 'retries', message: 'must not be negative' },
        { path: 'endpoint', message: 'must be an absolute URL such as https://host/path' },
        { path: 'profiles.ci.concurrency', message: 'must be at least 1' },
        { path: 'profiles.ci.rate', message: 'must not be negative' },
      ]),
    );
  });

  it('reports a bad value and an unknown key together', () => {
    expect(problemsOf({ batchSize: 0, colour: 'red' })).toEqual(
      expect.arrayContaining([
        { path: 'batchSize', message: 'must be at least 1' },
        { path: 'colour', message: 'unknown key' },
      ]),
    );
  });

  it('reports every unknown key, not only the first', () => {
    expect(problemsOf({ batchsize: 10, retrys: 2, endPoint: 'https://x' })).toEqual([
      { path: 'batchsize', message: 'unknown key (did you mean "batchSize"?)' },
      { path: 'endPoint', message: 'unknown key (did you mean "endpoint"?)' },
      { path: 'retrys', message: 'unknown key (did you mean "retries"?)' },
    ]);
  });

  it('reports every unknown key inside a profile', () => {
    expect(problemsOf({ profiles: { ci: { batchsize: 10, retrys: 2 } } })).toEqual([
      { path: 'profiles.ci.batchsize', message: 'unknown key (did you mean "batchSize"?)' },
      { path: 'profiles.ci.retrys', message: 'unknown key (did you mean "retries"?)' },
    ]);
  });
});

describe('checkConfigFile: wrong shapes', () => {
  it.each<[string, unknown, string]>([
    ['a string', 'batchSize: 10', '(root)'],
    ['null', null, '(root)'],
    ['a profile that is a string', { profiles: { ci: 'fast' } }, 'profiles.ci'],
  ])('%s is reported as the wrong type, not as an unknown key', (_label, raw, path) => {
    const found = problemsOf(raw);
    expect(found.map((p) => p.path)).toEqual([path]);
    expect(found[0]!.message).not.toBe('unknown key');
  });

  it('reports a gateway string that is not a number with the schema’s own wording', () => {
    expect(problemsOf({ gateway: 'abc' })).toEqual([
      { path: 'gateway', message: 'must be a positive whole number such as 99700999' },
    ]);
  });

  it('reports a price string that is not a number with the schema’s own wording', () => {
    expect(problemsOf({ price: '5 kr' })).toEqual([
      { path: 'price', message: 'must be a whole number of øre, 0 or more' },
    ]);
  });

  it('reports a timeout that is not a duration together with the other problems', () => {
    expect(problemsOf({ timeout: 'soon', batchSize: 0 }).map((p) => p.path)).toEqual(
      expect.arrayContaining(['timeout', 'batchSize']),
    );
  });
});
