// Per-message validation (one StatusCode per rule) and the contract's rules 1–3.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startSimulator,
  STATUS_CODES,
  statusCodeTable,
  type Simulator,
} from '../../src/simulator/index.js';
import { message, send } from './helpers.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.stop();
});

const hex = (bytes: number) => 'ab'.repeat(bytes);

/** [case, the Messages item, expected StatusCode, a word the StatusDescription must contain]. */
const rejected: Array<[string, unknown, number, string]> = [
  ['a string item', 'hello', 100, 'Messages item'],
  ['a null item', null, 100, 'Messages item'],
  ['an array item', [1], 100, 'Messages item'],
  ['Gateway missing', message({ Gateway: undefined }), 101, 'Gateway'],
  ['Gateway 0', message({ Gateway: 0 }), 101, 'Gateway'],
  ['Gateway negative', message({ Gateway: -1933 }), 101, 'Gateway'],
  ['Gateway fractional', message({ Gateway: 1933.5 }), 101, 'Gateway'],
  ['Gateway not digits', message({ Gateway: 'abc' }), 101, 'Gateway'],
  [
    'OriginatorAddress alphanumeric 12',
    message({ OriginatorAddress: 'ABCDEFGHIJKL' }),
    102,
    'OriginatorAddress',
  ],
  [
    'OriginatorAddress 26 digits',
    message({ OriginatorAddress: '1'.repeat(26) }),
    102,
    'OriginatorAddress',
  ],
  [
    'OriginatorAddress not ASCII',
    message({ OriginatorAddress: 'Blåbær' }),
    102,
    'OriginatorAddress',
  ],
  [
    'OriginatorAddress an object',
    message({ OriginatorAddress: { a: 1 } }),
    102,
    'OriginatorAddress',
  ],
  [
    'DestinationAddress missing',
    message({ DestinationAddress: undefined }),
    103,
    'DestinationAddress',
  ],
  [
    'DestinationAddress leading 0',
    message({ DestinationAddress: '004741234567' }),
    103,
    'DestinationAddress',
  ],
  [
    'DestinationAddress with +',
    message({ DestinationAddress: '+4741234567' }),
    103,
    'DestinationAddress',
  ],
  [
    'DestinationAddress 7 digits',
    message({ DestinationAddress: 4123456 }),
    103,
    'DestinationAddress',
  ],
  [
    'DestinationAddress 16 digits',
    message({ DestinationAddress: '4'.repeat(16) }),
    103,
    'DestinationAddress',
  ],
  [
    'DestinationAddress letters',
    message({ DestinationAddress: '47abc' }),
    103,
    'DestinationAddress',
  ],
  [
    'DestinationAddress fractional',
    message({ DestinationAddress: 4741234567.5 }),
    103,
    'DestinationAddress',
  ],
  ['Price missing', message({ Price: undefined }), 104, 'Price'],
  ['Price negative', message({ Price: -1 }), 104, 'Price'],
  ['Price fractional', message({ Price: 1.5 }), 104, 'Price'],
  ['Price over 32 bits', message({ Gateway: 1933, Price: 2 ** 31 }), 104, 'Price'],
  ['premium on 99700999', message({ Price: 100 }), 105, 'short-number gateway'],
  [
    'premium on gateway 100000',
    message({ Gateway: 100000, Price: 1 }),
    105,
    'short-number gateway',
  ],
  ['MessageType "01"', message({ MessageType: '01' }), 106, 'MessageType'],
  ['MessageType "0"', message({ MessageType: '0' }), 106, 'MessageType'],
  ['MessageType "000"', message({ MessageType: '000' }), 106, 'MessageType'],
  [
    'ValidationPeriod 15 characters',
    message({ ValidationPeriod: '203012312359591' }),
    107,
    'ValidationPeriod',
  ],
  [
    'ValidationPeriod month 13',
    message({ ValidationPeriod: '20301301120000' }),
    107,
    'ValidationPeriod',
  ],
  [
    'ValidationPeriod 30 February',
    message({ ValidationPeriod: '20300230120000' }),
    107,
    'ValidationPeriod',
  ],
  [
    'ValidationPeriod hour 24',
    message({ ValidationPeriod: '20301231240000' }),
    107,
    'ValidationPeriod',
  ],
  ['ValidationPeriod short digits', message({ ValidationPeriod: '2030' }), 107, 'ValidationPeriod'],
  ['MessageId 33 characters', message({ MessageId: 'x'.repeat(33) }), 108, 'MessageId'],
  ['MessageId an object', message({ MessageId: { id: 1 } }), 108, 'MessageId'],
  ['UserDataHeader not hex', message({ UserDataHeader: 'zz' }), 109, 'UserDataHeader'],
  ['UserDataHeader odd length', message({ UserDataHeader: 'abc' }), 109, 'UserDataHeader'],
  ['UserDataHeader 34 characters', message({ UserDataHeader: hex(17) }), 109, 'UserDataHeader'],
  ['UserData missing', message({ UserData: undefined }), 110, 'UserData'],
  ['UserData empty', message({ UserData: '' }), 110, 'UserData'],
  ['UserData an object', message({ UserData: { text: 'hi' } }), 110, 'UserData'],
  [
    'UserData 1025 characters',
    message({ UserData: 'a'.repeat(1025), MessageType: '11' }),
    111,
    'UserData',
  ],
  [
    'UserData 161 with MessageType "00"',
    message({ UserData: 'a'.repeat(161), MessageType: '00' }),
    112,
    'UserData',
  ],
  [
    'UserData not hex with "10"',
    message({ UserData: 'hello', MessageType: '10' }),
    113,
    'UserData',
  ],
  ['UserData odd hex with "10"', message({ UserData: 'abc', MessageType: '10' }), 113, 'UserData'],
  ['Category 33 characters', message({ Category: 'c'.repeat(33) }), 114, 'Category'],
  ['CustomData an array', message({ CustomData: ['qos'] }), 115, 'CustomData'],
  ['CustomData a string', message({ CustomData: 'qos=1' }), 115, 'CustomData'],
  [
    'DeliveryReportUrl 2049 characters',
    message({ DeliveryReportUrl: 'h'.repeat(2049) }),
    116,
    'DeliveryReportUrl',
  ],
  ['ServiceCode 129 characters', message({ ServiceCode: 's'.repeat(129) }), 117, 'ServiceCode'],
  [
    'ServiceDescription 513 characters',
    message({ ServiceDescription: 's'.repeat(513) }),
    118,
    'ServiceDescription',
  ],
  [
    'several problems: the first rule wins',
    message({ Gateway: 0, DestinationAddress: 'x', UserData: '' }),
    101,
    'Gateway',
  ],
  [
    'destination before UserData',
    message({ DestinationAddress: 'x', UserData: '' }),
    103,
    'DestinationAddress',
  ],
];

const accepted: Array<[string, Record<string, unknown>]> = [
  ['the minimal message', message()],
  [
    'every field set',
    message({
      OriginatorAddress: 'ACME',
      MessageType: '00',
      ValidationPeriod: '20301231235959',
      UserDataHeader: '050003CC0201',
      Category: 'c'.repeat(32),
      CustomData: { qos: 1 },
      DeliveryReportUrl: 'https://example.com/Sms/Dr?msgid=[$MSGID]&status=[$STATUS]',
      ServiceCode: 'svc',
      ServiceDescription: 'desc',
    }),
  ],
  ['DestinationAddress as a digit string', message({ DestinationAddress: '4741234567' })],
  ['DestinationAddress of 8 digits', message({ DestinationAddress: 47412345 })],
  ['DestinationAddress of 15 digits', message({ DestinationAddress: 474123456789012 })],
  ['Gateway as a digit string', message({ Gateway: '99700999' })],
  ['premium on a short-number gateway', message({ Gateway: 1933, Price: 500 })],
  ['OriginatorAddress 11 alphanumeric', message({ OriginatorAddress: 'ABCDEFGHIJK' })],
  ['OriginatorAddress 25 digits with +', message({ OriginatorAddress: `+${'4'.repeat(25)}` })],
  ['OriginatorAddress as a number', message({ OriginatorAddress: 4712345678 })],
  [
    'optional fields null or empty',
    message({
      OriginatorAddress: '',
      MessageType: null,
      ValidationPeriod: '',
      CustomData: null,
      UserDataHeader: '',
    }),
  ],
  ['long text without MessageType', message({ UserData: 'a'.repeat(161) })],
  ['long text with MessageType "11"', message({ UserData: 'a'.repeat(1024), MessageType: '11' })],
  ['160 characters with "00"', message({ UserData: 'a'.repeat(160), MessageType: '00' })],
  [
    'binary hex with "10"',
    message({ UserData: hex(140), MessageType: '10', UserDataHeader: hex(16) }),
  ],
  ['a relative ValidationPeriod', message({ ValidationPeriod: '+2d' })],
  ['MessageId of 32 characters', message({ MessageId: 'x'.repeat(32) })],
  ['a leap day', message({ ValidationPeriod: '20320229120000' })],
];

describe('per-message rules', () => {
  const rows = rejected.map(([name, item, code, field]) => ({ name, item, code, field }));
  it.each(rows)('$name → StatusCode $code', async ({ item, code, field }) => {
    const before = sim.acceptedCount;
    const reply = await send(sim, [item]);
    expect(reply.status).toBe(200);
    expect(reply.json.ProcessResult).toBe(true);
    const result = reply.json.Messages?.[0];
    expect(result?.StatusCode).toBe(code);
    expect(result?.StatusDescription).toContain(field);
    expect(result?.TransactionId).toMatch(/^\S{1,32}$/);
    expect(sim.acceptedCount).toBe(before);
  });

  it.each(accepted)('accepts %s', async (_name, item) => {
    const reply = await send(sim, [item]);
    const result = reply.json.Messages?.[0];
    expect(result).toMatchObject({ StatusCode: 0, StatusDescription: 'Accepted' });
    expect(sim.ledger.at(-1)?.transactionId).toBe(result?.TransactionId);
  });

  it('uses only codes from the documented table', () => {
    const documented = new Set(statusCodeTable().map((row) => row.code));
    for (const [, , code] of rejected) expect(documented.has(code)).toBe(true);
    expect(documented.size).toBe(statusCodeTable().length);
    expect(STATUS_CODES.accepted.code).toBe(0);
  });
});

describe('rules 1–3', () => {
  it('gives one result per item, in order, echoing MessageId or ""', async () => {
    const items = [
      message({ MessageId: 'a' }),
      message({ MessageId: undefined }),
      message({ MessageId: 'bad', DestinationAddress: '0' }),
      'not an object',
      message({ MessageId: 'e' }),
      message({ MessageId: 'f', Price: 9 }),
    ];
    const reply = await send(sim, items);
    expect(reply.json.ProcessResult).toBe(true);
    expect(reply.json.ProcessResultDescription).toBeUndefined();
    const results = reply.json.Messages ?? [];
    expect(results.map((r) => r.MessageId)).toEqual(['a', '', 'bad', '', 'e', 'f']);
    expect(results.map((r) => r.StatusCode)).toEqual([0, 0, 103, 100, 0, 105]);
    for (const r of results) expect(r.ExtraInfo?.['server']).toBe('sim1');
    expect(sim.ledger.slice(-3).map((e) => e.messageId)).toEqual(['a', '', 'e']);
  });

  it('echoes a numeric MessageId as a string', async () => {
    const reply = await send(sim, [message({ MessageId: 42 })]);
    expect(reply.json.Messages?.[0]?.MessageId).toBe('42');
  });

  it.each([
    ['an empty Messages array', { Messages: [] }],
    ['no Messages at all', { Messages: undefined }],
    ['Messages null', { Messages: null }],
  ])('processes %s with ProcessResult true and no results', async (_name, extra) => {
    const reply = await send(sim, [], extra);
    expect(reply.json).toEqual({ ProcessResult: true, Messages: [] });
  });
});
