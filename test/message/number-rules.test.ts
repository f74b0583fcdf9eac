// The compiled number rules give libphonenumber-js's answer for every number of a large generated corpus.
import { describe, expect, it } from 'vitest';
import examples from 'libphonenumber-js/examples.mobile.json';
import { getCountries, getCountryCallingCode } from 'libphonenumber-js/max';
import { normalizeMsisdn, normalizeMsisdnByLibrary } from '../../src/message/msisdn.js';
import { readByRules, rulesCanRead } from '../../src/message/number-rules.js';
import { maxMetadata } from '../../src/message/phone-library.js';
import { mulberry32 } from '../../src/simulator/faults.js';

const NON_GEOGRAPHIC = ['800', '808', '870', '878', '881', '882', '883', '888', '979'];
// National prefixes as written in front of national numbers: 0 almost everywhere, 1 in North
// America, 8 in Russia and its neighbours, 06 in Hungary.
const NATIONAL_PREFIXES = ['', '', '0', '1', '8', '06'];

type Case = [raw: string, country: string | undefined];

function corpus(seed: number): Case[] {
  const next = mulberry32(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const digits = (length: number) =>
    Array.from({ length }, () => String(Math.floor(next() * 10))).join('');
  const countries = getCountries();
  const cases: Case[] = [];
  const spellings = (cc: string, nsn: string, country: string) => {
    const prefix = pick(NATIONAL_PREFIXES);
    const spaced = nsn.replace(/(\d{3})(?=\d)/g, '$1 ');
    cases.push(
      [`+${cc}${nsn}`, undefined],
      [`00${cc} ${spaced}`, undefined],
      [`${cc}${nsn}`, undefined],
      [`${prefix}${nsn}`, country],
      [`${cc}-${nsn}`, country],
      [`+${cc} ${spaced}`, pick(countries)],
      [`${prefix}${nsn}`, undefined],
      [`${nsn}`, pick(countries)],
    );
  };
  const variants = (nsn: string) => {
    // Valid mobiles, the same with their last digits changed, other leading digits (fixed lines,
    // toll-free, premium and the rest of the plan), and lengths one or two off either way.
    const changed = nsn.slice(0, Math.max(1, nsn.length - 3)) + digits(Math.min(3, nsn.length - 1));
    const lead = String(Math.floor(next() * 10)) + nsn.slice(1);
    const lead2 = digits(2) + nsn.slice(2);
    return [
      nsn,
      changed,
      lead,
      lead2,
      digits(nsn.length),
      nsn.slice(0, -1),
      nsn.slice(0, -2),
      nsn + digits(1),
      nsn + digits(2),
      digits(1 + Math.floor(next() * 17)),
    ];
  };
  while (cases.length < 15_000) {
    for (const country of countries) {
      const cc = getCountryCallingCode(country);
      const example = (examples as Record<string, string | undefined>)[country] ?? digits(9);
      for (const nsn of variants(example)) spellings(cc, nsn, country);
    }
    for (const cc of NON_GEOGRAPHIC) {
      for (const nsn of variants(digits(8 + Math.floor(next() * 5))))
        spellings(cc, nsn, pick(countries));
    }
  }
  return cases;
}

describe('compiled number rules', () => {
  it('agree with libphonenumber-js on at least 15,000 generated numbers of every region', () => {
    const cases = corpus(13);
    expect(cases.length).toBeGreaterThanOrEqual(15_000);
    const kinds = new Map<string, number>();
    const differences: string[] = [];
    for (const [raw, country] of cases) {
      const fast = normalizeMsisdn(raw, country);
      const reference = normalizeMsisdnByLibrary(raw, country);
      const same = fast.ok
        ? reference.ok && fast.msisdn === reference.msisdn
        : !reference.ok && fast.reason === reference.reason;
      if (!same)
        differences.push(
          `${JSON.stringify(raw)} ${country}: ${JSON.stringify(fast)} ≠ ${JSON.stringify(reference)}`,
        );
      const kind = fast.ok ? 'accepted' : fast.reason.replace(/;.*/, '');
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    expect(differences.slice(0, 20)).toEqual([]);
    // The corpus reaches every kind of answer, not just the common ones.
    for (const kind of [
      'accepted',
      'is a fixed-line number, not a mobile number',
      'is a toll-free number, not a mobile number',
      'is a premium-rate number, not a mobile number',
      'is a shared-cost number, not a mobile number',
      'is a VoIP number, not a mobile number',
      'not a mobile number (too short)',
      'not a mobile number (too long)',
      'not a valid number in its country',
    ])
      expect(kinds.get(kind), kind).toBeGreaterThan(10);
  });

  // The agreement above is the rules' only when they are in use: they are, with this library.
  it('are used with the installed library, and left aside when its Metadata lacks an accessor', () => {
    expect(rulesCanRead(maxMetadata())).toBe(true);
    const reading = { valid: true, type: 'MOBILE', msisdn: '4741000001' };
    expect(readByRules('+4741000001', undefined)).toEqual(reading);
    const renamed = maxMetadata() as { selectNumberingPlan(country: string): void };
    const select = renamed.selectNumberingPlan.bind(renamed);
    renamed.selectNumberingPlan = (country) => {
      select(country);
      const plan = (renamed as unknown as { numberingPlan: Record<string, unknown> }).numberingPlan;
      plan.nationalPrefixForParsing = undefined;
    };
    expect(rulesCanRead(renamed)).toBe(false);
    expect(rulesCanRead({})).toBe(false);
    expect(rulesCanRead(undefined)).toBe(false);
  });
});
