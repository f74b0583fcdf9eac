// Recipient numbers → international MSISDN digits, accepted only when libphonenumber-js types them mobile.
import { readByRules, UNSURE } from './number-rules.js';
import type { CountryCode, NumberType } from 'libphonenumber-js/max';
import { phoneLibrary } from './phone-library.js';

export type MsisdnResult = { ok: true; msisdn: string } | { ok: false; reason: string };

const SEPARATORS = /[\s\-().\u00a0/]/g;

const LENGTH_REASONS: Record<string, string> = {
  TOO_SHORT: 'too short',
  TOO_LONG: 'too long',
  INVALID_LENGTH: 'wrong length',
  INVALID_COUNTRY: 'unknown country code',
  NOT_A_NUMBER: 'not a phone number',
};

// The max metadata (not the mobile-only one) is needed to tell a fixed-line or toll-free number
// from an invalid one, and so to name the type. It has type data for every region and every
// non-geographic code, so "valid" always comes with a type and no region needs an exception.
const SMS_CAPABLE: ReadonlySet<NumberType> = new Set(['MOBILE', 'FIXED_LINE_OR_MOBILE']);

const TYPE_NAMES: Record<Exclude<NumberType, undefined>, string> = {
  FIXED_LINE: 'a fixed-line number',
  MOBILE: 'a mobile number',
  FIXED_LINE_OR_MOBILE: 'a fixed-line or mobile number',
  PREMIUM_RATE: 'a premium-rate number',
  TOLL_FREE: 'a toll-free number',
  SHARED_COST: 'a shared-cost number',
  VOIP: 'a VoIP number',
  PERSONAL_NUMBER: 'a personal number',
  PAGER: 'a pager number',
  UAN: 'a universal access number',
  VOICEMAIL: 'a voicemail access number',
};

/** A reading of the digits: valid with its type, or invalid with the reason why, asked only if needed. */
type Reading =
  { valid: true; type: NumberType; msisdn: string } | { valid: false; reason: () => string };
type Reader = (text: string, region: CountryCode | undefined) => Reading;

/**
 * Accepts "+47 412 34 567", "004741234567", "4741234567" and, with a country, national "41234567".
 * With a country, digits without a prefix are read as national first; the international reading
 * is tried only when the national one is no valid number at all, so a national toll-free or
 * shared-cost number is refused as such rather than sent to a stranger abroad.
 */
export function normalizeMsisdn(raw: string, country?: string): MsisdnResult {
  return normalize(raw, country, readFast);
}

/**
 * The same check with every reading asked of libphonenumber-js: the reference the compiled rules
 * of number-rules.ts are tested against.
 */
export function normalizeMsisdnByLibrary(raw: string, country?: string): MsisdnResult {
  return normalize(raw, country, read);
}

/**
 * Any valid number, of any type, read as recipients are: a suppression list may name a landline,
 * which can never match a recipient, but is no mistake in the list either.
 */
export function normalizeListedNumber(raw: string, country?: string): MsisdnResult {
  return normalize(raw, country, readFast, 'any');
}

const DIGITS = /^\+?[0-9]+$/;

function normalize(
  raw: string,
  country: string | undefined,
  readDigits: Reader,
  accepted: ReadonlySet<NumberType> | 'any' = SMS_CAPABLE,
): MsisdnResult {
  // Most recipients are written without separators; only the others need the replace.
  let compact = raw;
  if (!DIGITS.test(raw)) {
    compact = raw.trim().replace(SEPARATORS, '');
    if (compact === '') return { ok: false, reason: 'empty' };
    if (!DIGITS.test(compact)) return { ok: false, reason: 'not a phone number' };
  }
  const plus = compact.startsWith('+');
  const idd = !plus && compact.startsWith('00');
  const international = plus ? compact : idd ? `+${compact.slice(2)}` : `+${compact}`;

  let firstReason: (() => string) | undefined;
  if (country && !plus && !idd) {
    const national = readDigits(compact, country as CountryCode);
    if (national.valid) return verdict(national, accepted);
    firstReason = national.reason;
  }
  const reading = readDigits(international, undefined);
  if (reading.valid) return verdict(reading, accepted);
  let reason = (firstReason ?? reading.reason)();
  if (!country && !plus && !idd && compact.length <= 10) {
    reason += '; if this is a national number, give its country with --country';
  }
  return { ok: false, reason };
}

function verdict(
  reading: { type: NumberType; msisdn: string },
  accepted: ReadonlySet<NumberType> | 'any',
): MsisdnResult {
  if (accepted === 'any' || accepted.has(reading.type)) return { ok: true, msisdn: reading.msisdn };
  return { ok: false, reason: `is ${TYPE_NAMES[reading.type!]}, not a mobile number` };
}

/** The compiled rules, and the library itself for whatever they leave to it. */
function readFast(text: string, region: CountryCode | undefined): Reading {
  const reading = readByRules(text, region);
  if (reading === UNSURE) return read(text, region);
  if (reading.valid) return reading;
  const { lengthProblem } = reading;
  return { valid: false, reason: () => lengthReason(lengthProblem) };
}

function read(text: string, region: CountryCode | undefined): Reading {
  const { parsePhoneNumberFromString, validatePhoneNumberLength } = phoneLibrary();
  const parsed = parsePhoneNumberFromString(text, region);
  // getType() is undefined exactly when the number is invalid, so one call does both checks.
  const type = parsed?.getType();
  return parsed && type
    ? { valid: true, type, msisdn: parsed.number.slice(1) }
    : { valid: false, reason: () => lengthReason(validatePhoneNumberLength(text, region)) };
}

function lengthReason(lengthProblem: string | undefined): string {
  if (lengthProblem)
    return `not a mobile number (${LENGTH_REASONS[lengthProblem] ?? lengthProblem})`;
  return 'not a valid number in its country';
}
