// Field rules of the gateway (docs/gateway.md#fields-and-their-limits): one checker per field, undefined when the value is fine.
import { describe, expect, it } from 'vitest';
import {
  checkCategory,
  checkDeliveryReportUrl,
  checkGatewayField,
  checkMessageType,
  checkOriginator,
  checkPremium,
  checkPrice,
  checkServiceCode,
  checkServiceDescription,
  checkUserData,
  checkUserDataHeader,
} from '../../src/message/rules.js';
import { analyzeText } from '../../src/message/encoding.js';

const POSITIVE = 'must be a positive whole number such as 99700999';
const WHOLE_ORE = 'must be a whole number of øre, 0 or more';
const HEX = 'must be hex (pairs of 0-9, A-F)';
const URL_PROBLEM = 'must be an absolute http(s) URL';

describe('checkGatewayField', () => {
  it.each([
    ['99700999', undefined],
    ['1933', undefined],
    ['1', undefined],
    ['9007199254740991', undefined], // Number.MAX_SAFE_INTEGER
    ['0', POSITIVE],
    ['01933', POSITIVE],
    ['-1', POSITIVE],
    ['1.5', POSITIVE],
    ['abc', POSITIVE],
    ['', POSITIVE],
    [' 1933', POSITIVE],
    ['9007199254740992', 'is too large to send exactly'],
    ['9223372036854775807', 'is too large to send exactly'], // int64 max fits int64, not a double
    ['9223372036854775808', 'is larger than a 64-bit integer'],
  ])('%j → %s', (value, problem) => {
    expect(checkGatewayField(value)).toBe(problem);
  });
});

describe('checkPrice', () => {
  it.each([
    ['0', undefined],
    ['100', undefined],
    ['2147483647', undefined],
    ['2147483648', 'is larger than a 32-bit integer'],
    ['-1', WHOLE_ORE],
    ['1.5', WHOLE_ORE],
    ['', WHOLE_ORE],
    ['kr 5', WHOLE_ORE],
  ])('%j → %s', (value, problem) => {
    expect(checkPrice(value)).toBe(problem);
  });
});

describe('checkPremium', () => {
  it.each([
    [0, 99700999, undefined],
    [0, 1933, undefined],
    [500, 1933, undefined],
    [1, 99700999, 'Price 1 needs a short-number gateway (premium is not possible on 99700999)'],
    [500, 99700999, 'Price 500 needs a short-number gateway (premium is not possible on 99700999)'],
    [500, 200000, 'Price 500 needs a short-number gateway (premium is not possible on 200000)'],
    [1, 100000, 'Price 1 needs a short-number gateway (premium is not possible on 100000)'],
    [500, 99999, undefined],
    [0, 200000, undefined],
  ])('price %d on gateway %d → %s', (price, gateway, problem) => {
    expect(checkPremium(price, gateway)).toBe(problem);
  });
});

describe('checkOriginator', () => {
  it.each([
    ['Intele', undefined],
    ['ABCDEFGHIJK', undefined], // 11 alphanumeric: the limit
    ['My Shop', undefined],
    ['1933', undefined],
    ['+4741234567', undefined],
    ['1'.repeat(25), undefined],
    [`+${'1'.repeat(25)}`, undefined], // the + is not a digit
    ['ABCDEFGHIJKL', 'alphanumeric sender "ABCDEFGHIJKL" is 12 characters (at most 11)'],
    ['1'.repeat(26), 'numeric sender is 26 digits (at most 25)'],
    [`+${'1'.repeat(26)}`, 'numeric sender is 26 digits (at most 25)'],
    ['', 'is empty'],
    ['   ', 'is empty'],
  ])('%j → %s', (value, problem) => {
    expect(checkOriginator(value)).toBe(problem);
  });
});

describe('checkMessageType', () => {
  it.each([
    ['00', undefined],
    ['10', undefined],
    ['11', undefined],
    ['0', 'must be two characters such as "00", "10" or "11"'],
    ['000', 'must be two characters such as "00", "10" or "11"'],
    ['', 'must be two characters such as "00", "10" or "11"'],
  ])('%j → %s', (value, problem) => {
    expect(checkMessageType(value)).toBe(problem);
  });
});

describe('checkUserDataHeader', () => {
  it.each([
    ['050003CC0201', undefined],
    ['050003cc0201', undefined],
    ['00'.repeat(16), undefined], // 32 hex digits: the limit
    ['00'.repeat(17), 'is 34 characters (at most 32)'],
    ['abc', HEX], // odd length
    ['zz', HEX],
    ['', HEX],
    ['05 00', HEX],
  ])('%j → %s', (value, problem) => {
    expect(checkUserDataHeader(value)).toBe(problem);
  });
});

describe('checkUserData', () => {
  const TOO_LONG = (n: number) => `is ${n} characters (at most 1024)`;
  const BINARY = 'must be hex (pairs of 0-9, A-F) when MessageType is "10" (binary)';
  const MULTI = (n: number, encoding: string) =>
    `needs ${n} ${encoding} segments, but MessageType "00" is a single message; use "11" (or leave MessageType unset)`;
  it.each([
    ['short text', 'Hello', '00', undefined],
    ['1024 letters', 'a'.repeat(1024), '11', undefined],
    ['1025 letters', 'a'.repeat(1025), '11', TOO_LONG(1025)],
    // Lengths count UTF-16 units, as the gateway's .NET strings do: an emoji counts two.
    ['512 emoji = 1024 units', '😀'.repeat(512), '11', undefined],
    ['513 emoji = 1026 units', '😀'.repeat(513), '11', TOO_LONG(1026)],
    ['1023 letters + emoji = 1025 units', 'a'.repeat(1023) + '😀', '11', TOO_LONG(1025)],
    ['1024 Norwegian letters', 'æøå'.repeat(341) + 'Æ', '11', undefined],
    ['empty text', '', '00', 'is empty'],
    ['empty binary text', '', '10', 'is empty'],
    ['hex as binary', '48656C6C6F', '10', undefined],
    ['plain text as binary', 'Hello', '10', BINARY],
    ['odd-length hex as binary', 'ABC', '10', BINARY],
    ['plain text as long text', 'Hello', '11', undefined],
    // "00" is one message: refused when the tool's own count needs more than one segment.
    ['160 letters as single', 'a'.repeat(160), '00', undefined],
    ['80 euro signs (160 septets) as single', '€'.repeat(80), '00', undefined],
    ['81 euro signs (162 septets) as single', '€'.repeat(81), '00', MULTI(2, 'GSM-7')],
    ['70 Cyrillic letters as single', 'Ж'.repeat(70), '00', undefined],
    ['71 Cyrillic letters as single', 'Ж'.repeat(71), '00', MULTI(2, 'UCS-2')],
    ['100 Cyrillic letters as single', 'Ж'.repeat(100), '00', MULTI(2, 'UCS-2')],
    ['81 euro signs as long text', '€'.repeat(81), '11', undefined],
  ])('%s (MessageType %s)', (_label, text, type, problem) => {
    expect(checkUserData(text, type, analyzeText(text))).toBe(problem);
  });
});

describe('checkDeliveryReportUrl', () => {
  const vendorTemplate =
    'https://example.com/Sms/Dr?msgid=[$MSGID]&status=[$STATUS]&timestamp=[$TIMESTAMP]&gateway=[$GATEWAY]&mnc=[$MNC]&mcc=[$MCC]';
  it.each([
    [vendorTemplate, undefined],
    ['http://127.0.0.1:8080/dr', undefined],
    ['https://example.com/dr', undefined],
    ['ftp://example.com/dr', URL_PROBLEM],
    ['mailto:ops@example.com', URL_PROBLEM],
    ['/relative/dr', URL_PROBLEM],
    ['example.com/dr', URL_PROBLEM],
    ['', URL_PROBLEM],
  ])('%j → %s', (value, problem) => {
    expect(checkDeliveryReportUrl(value)).toBe(problem);
  });

  it('allows 2048 characters and no more', () => {
    const base = 'https://example.com/'; // 20 characters
    expect(checkDeliveryReportUrl(base + 'a'.repeat(2028))).toBeUndefined();
    expect(checkDeliveryReportUrl(base + 'a'.repeat(2029))).toBe(
      'is 2049 characters (at most 2048)',
    );
  });
});

describe('length-limited text fields', () => {
  it.each([
    ['Category', checkCategory, 32],
    ['ServiceCode', checkServiceCode, 128],
    ['ServiceDescription', checkServiceDescription, 512],
  ])('%s allows %d characters and no more', (_field, check, limit) => {
    expect(check('x'.repeat(limit))).toBeUndefined();
    expect(check('x'.repeat(limit + 1))).toBe(`is ${limit + 1} characters (at most ${limit})`);
    expect(check('')).toBeUndefined();
  });
});
