// normalizeMsisdn: every accepted spelling → international digits; failures carry a reason.
import { describe, expect, it } from 'vitest';
import { normalizeMsisdn } from '../../src/message/msisdn.js';

const HINT = '; if this is a national number, give its country with --country';

describe('normalizeMsisdn: accepted', () => {
  it.each([
    ['+47 412 34 567', undefined, '4741234567'],
    ['004741234567', undefined, '4741234567'],
    ['4741234567', undefined, '4741234567'],
    ['0047 412 34 567', undefined, '4741234567'],
    ['+4741234567', undefined, '4741234567'],
    ['+47-412-34-567', undefined, '4741234567'],
    ['+47 (412) 34.567', undefined, '4741234567'],
    ['+47/41234567', undefined, '4741234567'],
    ['+47\u00a0412\u00a034\u00a0567', undefined, '4741234567'],
    ['  4741234567\n', undefined, '4741234567'],
    ['+47 912 34 567', undefined, '4791234567'],
    ['+46 70 123 45 67', undefined, '46701234567'],
    ['+1 202 555 0123', undefined, '12025550123'],
    // National numbers with a country.
    ['41234567', 'NO', '4741234567'],
    ['412 34 567', 'NO', '4741234567'],
    ['0701234567', 'SE', '46701234567'],
    // International digits still work when a country is given.
    ['4741234567', 'NO', '4741234567'],
    ['4741234567', 'SE', '4741234567'],
    ['+4741234567', 'SE', '4741234567'],
    ['004741234567', 'SE', '4741234567'],
  ])('%j (country %s) → %s', (raw, country, msisdn) => {
    expect(normalizeMsisdn(raw, country)).toEqual({ ok: true, msisdn });
  });
});

describe('normalizeMsisdn: rejected', () => {
  it.each([
    ['', undefined, 'empty'],
    ['   ', undefined, 'empty'],
    ['abc', undefined, 'not a phone number'],
    ['+47 412 34 56a', undefined, 'not a phone number'],
    ['++4741234567', undefined, 'not a phone number'],
    ['47+41234567', undefined, 'not a phone number'],
    ['+', undefined, 'not a phone number'],
    // Written with + or 00: clearly international, so no --country hint.
    ['+47 123', undefined, 'not a mobile number (too short)'],
    ['0047123', undefined, 'not a mobile number (too short)'],
    ['+47 412 34 567 8', undefined, 'not a mobile number (too long)'],
    ['+4741234567890123', undefined, 'not a mobile number (too long)'],
    ['+999123456789', undefined, 'not a mobile number (unknown country code)'],
    // Fixed-line and non-mobile ranges are not mobile numbers.
    ['+47 22 12 34 56', undefined, 'not a mobile number in its country'],
    ['+47 58 12 34 56', undefined, 'not a mobile number in its country'],
    ['+47 800 12 345', undefined, 'not a mobile number in its country'],
    ['22123456', 'NO', 'not a mobile number in its country'],
    // National numbers without a country get a hint.
    ['41234567', undefined, `not a mobile number (too short)${HINT}`],
    ['123', undefined, `not a mobile number (too short)${HINT}`],
    // An unknown country is reported, not thrown.
    ['41234567', 'XX', 'not a mobile number (unknown country code)'],
  ])('%j (country %s) → %s', (raw, country, reason) => {
    expect(normalizeMsisdn(raw, country)).toEqual({ ok: false, reason });
  });
});
