// normalizeMsisdn: every accepted spelling → international digits; only mobile types pass; failures carry a reason.
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
    ['+44 7400 123456', undefined, '447400123456'],
    // North American numbers are typed FIXED_LINE_OR_MOBILE: the plan cannot tell them apart.
    ['+1 202 555 0123', undefined, '12025550123'],
    // Satellite mobiles have no country but are mobile.
    ['+870 773 111 632', undefined, '870773111632'],
    // National numbers with a country.
    ['41234567', 'NO', '4741234567'],
    ['412 34 567', 'NO', '4741234567'],
    ['0701234567', 'SE', '46701234567'],
    ['07400 123456', 'GB', '447400123456'],
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
    // Right length, but in no range of its country.
    ['+47 58 12 34 56', undefined, 'not a valid number in its country'],
    // National numbers without a country get a hint.
    ['41234567', undefined, `not a mobile number (too short)${HINT}`],
    ['123', undefined, `not a mobile number (too short)${HINT}`],
    // An unknown country is reported, not thrown.
    ['41234567', 'XX', 'not a mobile number (unknown country code)'],
  ])('%j (country %s) → %s', (raw, country, reason) => {
    expect(normalizeMsisdn(raw, country)).toEqual({ ok: false, reason });
  });
});

// Valid numbers of a type that cannot receive an SMS are refused with the type named. The
// non-geographic codes were accepted before because only the general pattern was checked.
describe('normalizeMsisdn: numbers of other types', () => {
  it.each([
    ['+800 1234 5678', undefined, 'a toll-free number'],
    ['+808 1234 5678', undefined, 'a shared-cost number'],
    ['+878 10 12345 67890', undefined, 'a VoIP number'],
    ['+883 510 012 345', undefined, 'a VoIP number'],
    ['+888 123 456 78901', undefined, 'a universal access number'],
    ['+979 1 2345 6789', undefined, 'a premium-rate number'],
    ['+44 20 7946 0958', undefined, 'a fixed-line number'],
    ['+47 22 12 34 56', undefined, 'a fixed-line number'],
    ['+47 800 12 345', undefined, 'a toll-free number'],
    ['+47 820 12 345', undefined, 'a premium-rate number'],
    ['+1 800 555 0123', undefined, 'a toll-free number'],
    ['22123456', 'NO', 'a fixed-line number'],
    ['020 7946 0958', 'GB', 'a fixed-line number'],
    // --country: a valid national number of another type is refused as what it is, never read
    // again as international digits (which would be US 18603451234 and +800 17591759).
    ['1860 345 1234', 'IN', 'a shared-cost number'],
    ['80017591759', 'NG', 'a toll-free number'],
  ])('%j (country %s) is %s', (raw, country, type) => {
    expect(normalizeMsisdn(raw, country)).toEqual({
      ok: false,
      reason: `is ${type}, not a mobile number`,
    });
  });

  it('reads digits as international only when the national reading is no valid number', () => {
    // 4741234567 is no Swedish number at all, so it is read as the Norwegian mobile.
    expect(normalizeMsisdn('4741234567', 'SE')).toEqual({ ok: true, msisdn: '4741234567' });
    // The same digits as 1860 345 1234 without --country are a US number, as written.
    expect(normalizeMsisdn('18603451234')).toEqual({ ok: true, msisdn: '18603451234' });
  });
});
