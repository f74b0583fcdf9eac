// libphonenumber-js's reading of a recipient, compiled once per country: same answer, a fraction of the cost.
import type { NumberType } from 'libphonenumber-js/max';
import { maxMetadata } from './phone-library.js';

/** What validatePhoneNumberLength says of a number that parses but is invalid. */
export type LengthProblem = 'TOO_SHORT' | 'TOO_LONG' | 'INVALID_LENGTH' | undefined;

/**
 * A reading of the digits as libphonenumber-js gives it: valid with its type and international
 * digits, invalid with what validatePhoneNumberLength would say, or `UNSURE` when the input takes
 * a path these rules do not follow (a national prefix rewritten by a transform rule, an
 * international dialling prefix in a national reading, an unknown calling code, extreme lengths);
 * the caller then asks the library.
 */
export type RuleReading =
  | { valid: true; type: NumberType; msisdn: string }
  | { valid: false; lengthProblem: LengthProblem }
  | typeof UNSURE;
export const UNSURE = Symbol('unsure');

// The parts of libphonenumber-js's Metadata the rules are compiled from. The class is a documented
// export, but of these accessors its README lists only a few (and types fewer); they are the ones
// the library's own parse() uses. rulesCanRead() checks each is there before the rules are used.
interface Type {
  pattern(): string;
  possibleLengths(): number[];
}
interface Plan {
  callingCode(): string;
  IDDPrefix(): string;
  nationalNumberPattern(): string;
  possibleLengths(): number[] | undefined;
  nationalPrefixForParsing(): string | undefined;
  nationalPrefixTransformRule(): string | undefined;
  leadingDigits(): string | undefined;
  type(type: string): Type | undefined;
}
interface MetadataApi {
  hasCountry(country: string): boolean;
  hasCallingCode(callingCode: string): boolean;
  getCountryCodesForCallingCode(callingCode: string): string[] | undefined;
  selectNumberingPlan(countryOrCallingCode: string): void;
  numberingPlan: Plan;
}

/** What rulesCanRead() looks for: the accessors above, by name. */
const METADATA_METHODS = [
  'hasCountry',
  'hasCallingCode',
  'getCountryCodesForCallingCode',
  'selectNumberingPlan',
] as const;
const PLAN_METHODS = [
  'callingCode',
  'IDDPrefix',
  'nationalNumberPattern',
  'possibleLengths',
  'nationalPrefixForParsing',
  'nationalPrefixTransformRule',
  'leadingDigits',
  'type',
] as const;
const TYPE_METHODS = ['pattern', 'possibleLengths'] as const;

type TypeRule = { name: NumberType; lengths: readonly number[]; pattern: RegExp };

/** One numbering plan (a country's, or a non-geographic calling code's), with its patterns compiled. */
interface CompiledPlan {
  callingCode: string;
  idd: RegExp;
  nationalNumber: RegExp;
  possibleLengths: readonly number[] | undefined;
  nationalPrefix: RegExp | undefined;
  hasTransformRule: boolean;
  leadingDigits: RegExp | undefined;
  fixedLine: TypeRule | undefined;
  mobile: TypeRule | undefined;
  /** A MOBILE entry exists with an empty pattern: every fixed line is a mobile too. */
  mobileIsEmpty: boolean;
  /** The non-fixed-line types in the order libphonenumber-js's getNumberType tries them. */
  others: TypeRule[];
}

// The order of libphonenumber-js's helpers/getNumberType.js.
const NON_FIXED_LINE_TYPES: NumberType[] = [
  'MOBILE',
  'PREMIUM_RATE',
  'TOLL_FREE',
  'SHARED_COST',
  'VOIP',
  'PERSONAL_NUMBER',
  'PAGER',
  'UAN',
  'VOICEMAIL',
];
// parse(): national significant numbers outside these lengths are parse errors.
const MIN_NSN = 2;
const MAX_NSN = 17;

/**
 * The max metadata, read the first time a number is: a run that reads none (`check`, `--help`)
 * loads none. Without every accessor the rules read, every number is left to the library: slower,
 * still right.
 */
let loaded: { metadata: MetadataApi; usable: boolean } | undefined;
function rules(): { metadata: MetadataApi; usable: boolean } {
  if (loaded) return loaded;
  const metadata = maxMetadata() as MetadataApi;
  return (loaded = { metadata, usable: rulesCanRead(metadata) });
}
const plans = new Map<string, CompiledPlan>();
const callingCodeCountries = new Map<string, readonly string[] | undefined>();
const knownCallingCodes = new Map<string, boolean>();

const whole = (pattern: string) => new RegExp(`^(?:${pattern})$`);

/**
 * Whether `metadata` has every accessor the rules are compiled from: should a release of the
 * library rename one, numbers go to its API instead of every check failing.
 */
export function rulesCanRead(metadata: unknown): boolean {
  const api = metadata as Partial<Record<keyof MetadataApi, unknown>> | undefined;
  const functions = (object: object | undefined, names: readonly string[]) =>
    object !== undefined &&
    names.every((name) => typeof (object as Record<string, unknown>)[name] === 'function');
  try {
    if (!functions(api, METADATA_METHODS)) return false;
    // A country with every kind of rule: a national prefix, leading digits' absence, typed plans.
    (api as MetadataApi).selectNumberingPlan('GB');
    const plan = (api as MetadataApi).numberingPlan;
    return functions(plan, PLAN_METHODS) && functions(plan.type('MOBILE'), TYPE_METHODS);
  } catch {
    return false;
  }
}

/** The plan of a country ("NO") or of a calling code ("47" → its main country, "800" → non-geographic). */
function plan(countryOrCallingCode: string): CompiledPlan {
  let compiled = plans.get(countryOrCallingCode);
  if (compiled) return compiled;
  rules().metadata.selectNumberingPlan(countryOrCallingCode);
  const p = rules().metadata.numberingPlan;
  const typeRule = (name: NumberType): TypeRule | undefined => {
    const t = p.type(name!);
    // isNumberTypeEqualTo: a type without a pattern never matches.
    return t && t.pattern()
      ? { name, lengths: t.possibleLengths(), pattern: whole(t.pattern()) }
      : undefined;
  };
  const nationalPrefix = p.nationalPrefixForParsing();
  const leadingDigits = p.leadingDigits();
  const mobileType = p.type('MOBILE');
  compiled = {
    callingCode: p.callingCode(),
    idd: new RegExp(p.IDDPrefix()),
    nationalNumber: whole(p.nationalNumberPattern()),
    possibleLengths: p.possibleLengths(),
    nationalPrefix: nationalPrefix ? new RegExp(`^(?:${nationalPrefix})`) : undefined,
    hasTransformRule: Boolean(p.nationalPrefixTransformRule()),
    leadingDigits: leadingDigits ? new RegExp(leadingDigits) : undefined,
    fixedLine: typeRule('FIXED_LINE'),
    mobile: typeRule('MOBILE'),
    mobileIsEmpty: mobileType !== undefined && mobileType.pattern() === '',
    others: NON_FIXED_LINE_TYPES.map(typeRule).filter((t): t is TypeRule => t !== undefined),
  };
  plans.set(countryOrCallingCode, compiled);
  return compiled;
}

function countriesOf(callingCode: string): readonly string[] | undefined {
  if (!callingCodeCountries.has(callingCode))
    callingCodeCountries.set(
      callingCode,
      rules().metadata.getCountryCodesForCallingCode(callingCode),
    );
  return callingCodeCountries.get(callingCode);
}

function isCallingCode(digits: string): boolean {
  let known = knownCallingCodes.get(digits);
  if (known === undefined) {
    known = rules().metadata.hasCallingCode(digits);
    knownCallingCodes.set(digits, known);
  }
  return known;
}

const isType = (nsn: string, rule: TypeRule | undefined) =>
  rule !== undefined && rule.lengths.includes(nsn.length) && rule.pattern.test(nsn);

/** helpers/getNumberType.js */
function numberType(nsn: string, p: CompiledPlan): NumberType {
  if (!p.nationalNumber.test(nsn)) return undefined;
  if (isType(nsn, p.fixedLine)) {
    if (p.mobileIsEmpty || !p.mobile || isType(nsn, p.mobile)) return 'FIXED_LINE_OR_MOBILE';
    return 'FIXED_LINE';
  }
  for (const rule of p.others) if (isType(nsn, rule)) return rule.name;
  return undefined;
}

/** helpers/getCountryByCallingCode.js with getCountryByNationalNumber.js */
function countryOf(callingCode: string, nsn: string): string | undefined {
  const countries = countriesOf(callingCode);
  if (!countries) return undefined;
  if (countries.length === 1) return countries[0];
  for (const country of countries) {
    const p = plan(country);
    if (p.leadingDigits) {
      if (nsn.search(p.leadingDigits) === 0) return country;
    } else if (numberType(nsn, p)) return country;
  }
  return undefined;
}

/** helpers/checkNumberLength.js for a plan's own lengths: is the length a possible one, or longer? */
function lengthVerdict(nsn: string, p: CompiledPlan): 'possible' | 'short' | 'long' | 'invalid' {
  const lengths = p.possibleLengths;
  if (!lengths) return 'possible';
  const length = nsn.length;
  const min = lengths[0]!;
  if (min === length) return 'possible';
  if (min > length) return 'short';
  if (lengths[lengths.length - 1]! < length) return 'long';
  return lengths.includes(length) ? 'possible' : 'invalid';
}

/** helpers/extractNationalNumber.js: the national significant number after any national prefix. */
function stripNationalPrefix(digits: string, p: CompiledPlan): string | typeof UNSURE {
  if (!p.nationalPrefix) return digits;
  const match = p.nationalPrefix.exec(digits);
  if (!match) return digits;
  const groups = match.length - 1;
  if (p.hasTransformRule && groups > 0 && match[groups]) return UNSURE;
  const nsn = digits.slice(match[0].length);
  if (nsn === digits) return digits;
  // shouldHaveExtractedNationalPrefix
  if (p.nationalNumber.test(digits) && !p.nationalNumber.test(nsn)) return digits;
  if (p.possibleLengths) {
    const country = countryOf(p.callingCode, nsn);
    const verdict = lengthVerdict(nsn, country ? plan(country) : p);
    if (verdict === 'short' || verdict === 'invalid') return digits;
  }
  return nsn;
}

/** The reading of the digits after a calling code, in the calling code's main plan. */
function readAfterCallingCode(callingCode: string, rest: string): RuleReading {
  const nsn = stripNationalPrefix(rest, plan(callingCode));
  if (nsn === UNSURE || nsn.length < MIN_NSN || nsn.length > MAX_NSN) return UNSURE;
  return reading(callingCode, nsn, plan(countryOf(callingCode, nsn) ?? callingCode));
}

/** PhoneNumber.getType() and .number, or validatePhoneNumberLength's checkNumberLength. */
function reading(callingCode: string, nsn: string, p: CompiledPlan): RuleReading {
  const type = numberType(nsn, p);
  if (type) return { valid: true, type, msisdn: callingCode + nsn };
  return { valid: false, lengthProblem: LENGTH_PROBLEMS[lengthVerdict(nsn, p)] };
}

const LENGTH_PROBLEMS = {
  possible: undefined,
  short: 'TOO_SHORT',
  long: 'TOO_LONG',
  invalid: 'INVALID_LENGTH',
} as const;

/**
 * What `parsePhoneNumberFromString(text, country)?.getType()` and its `.number` say, for
 * `text` of digits with an optional leading "+" (separators already removed).
 */
export function readByRules(text: string, country: string | undefined): RuleReading {
  if (!rules().usable) return UNSURE;
  // Short inputs and very long ones take parse()'s error paths.
  if (text.length < 4 || text.length > 20) return UNSURE;
  if (text.startsWith('+')) {
    const digits = text.slice(1);
    if (digits.startsWith('0')) return UNSURE;
    for (let length = 1; length <= 3; length++) {
      const callingCode = digits.slice(0, length);
      if (isCallingCode(callingCode)) {
        const rest = digits.slice(length);
        return rest === '' ? UNSURE : readAfterCallingCode(callingCode, rest);
      }
    }
    return UNSURE;
  }
  if (!country || !rules().metadata.hasCountry(country)) return UNSURE;
  const home = plan(country);
  // stripIddPrefix: "011…" read with US is international; let the library handle it.
  if (text.search(home.idd) === 0) return UNSURE;
  const callingCode = home.callingCode;
  // extractCountryCallingCodeFromInternationalNumberWithoutPlusSign
  if (text.startsWith(callingCode)) {
    const shorter = text.slice(callingCode.length);
    const shorterNsn = stripNationalPrefix(shorter, home);
    const wholeNsn = stripNationalPrefix(text, home);
    if (shorterNsn === UNSURE || wholeNsn === UNSURE) return UNSURE;
    if (
      (!home.nationalNumber.test(wholeNsn) && home.nationalNumber.test(shorterNsn)) ||
      lengthVerdict(wholeNsn, home) === 'long'
    )
      return shorter === '' ? UNSURE : readAfterCallingCode(callingCode, shorter);
  }
  const nsn = stripNationalPrefix(text, home);
  if (nsn === UNSURE || nsn.length < MIN_NSN || nsn.length > MAX_NSN) return UNSURE;
  return reading(callingCode, nsn, plan(countryOf(callingCode, nsn) ?? country));
}
