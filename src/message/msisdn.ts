// Recipient numbers → international MSISDN digits, validated as mobile numbers by libphonenumber-js.
import {
  parsePhoneNumberFromString,
  validatePhoneNumberLength,
  type CountryCode,
} from 'libphonenumber-js/mobile';

export type MsisdnResult = { ok: true; msisdn: string } | { ok: false; reason: string };

const SEPARATORS = /[\s\-().\u00a0/]/g;

const LENGTH_REASONS: Record<string, string> = {
  TOO_SHORT: 'too short',
  TOO_LONG: 'too long',
  INVALID_LENGTH: 'wrong length',
  INVALID_COUNTRY: 'unknown country code',
  NOT_A_NUMBER: 'not a phone number',
};

/**
 * Accepts "+47 412 34 567", "004741234567", "4741234567" and, with a country, national "41234567".
 * Digits without a prefix are read as international unless a country is given and they parse as national.
 */
export function normalizeMsisdn(raw: string, country?: string): MsisdnResult {
  const compact = raw.trim().replace(SEPARATORS, '');
  if (compact === '') return { ok: false, reason: 'empty' };
  if (!/^\+?[0-9]+$/.test(compact)) return { ok: false, reason: 'not a phone number' };
  let candidates: [string, CountryCode | undefined][];
  if (compact.startsWith('+')) candidates = [[compact, undefined]];
  else if (compact.startsWith('00')) candidates = [[`+${compact.slice(2)}`, undefined]];
  else if (country) {
    candidates = [
      [compact, country as CountryCode],
      [`+${compact}`, undefined],
    ];
  } else candidates = [[`+${compact}`, undefined]];

  let firstReason: string | undefined;
  for (const [text, region] of candidates) {
    const parsed = parsePhoneNumberFromString(text, region);
    if (parsed?.isValid()) return { ok: true, msisdn: parsed.number.slice(1) };
    firstReason ??= reasonFor(text, region, parsed !== undefined && parsed.isPossible());
  }
  if (!country && !compact.startsWith('+') && !compact.startsWith('00') && compact.length <= 10) {
    firstReason += '; if this is a national number, give its country with --country';
  }
  return { ok: false, reason: firstReason ?? 'not a phone number' };
}

function reasonFor(text: string, region: CountryCode | undefined, possible: boolean): string {
  const lengthProblem = validatePhoneNumberLength(text, region);
  if (lengthProblem)
    return `not a mobile number (${LENGTH_REASONS[lengthProblem] ?? lengthProblem})`;
  return possible ? 'not a mobile number in its country' : 'not a valid number';
}
