// What a campaign will cost: each recipient's calling code, the price of its segments, sums without float dust.
import { countryCallingCodes, phoneLibrary } from './phone-library.js';

/**
 * What the gateway bills the sender for one segment: one price, or prices by calling code
 * (`"47"`) with a `"default"` for every other code.
 */
export type PricePerSegment = number | Readonly<Record<string, number>>;

let codes: ReadonlySet<string> | undefined;

/**
 * The calling code an MSISDN starts with (`4741234567` → `47`). Calling codes are prefix-free, so
 * the first of one, two or three leading digits that is one is the one; the few non-geographic
 * codes (+882 and the like) are left to libphonenumber-js.
 */
export function callingCode(msisdn: string): string {
  codes ??= new Set(countryCallingCodes());
  for (let length = 1; length <= 3; length++) {
    const prefix = msisdn.slice(0, length);
    if (codes.has(prefix)) return prefix;
  }
  return (
    phoneLibrary().parsePhoneNumberFromString(`+${msisdn}`)?.countryCallingCode ??
    msisdn.slice(0, 3)
  );
}

/** The price of one segment to a calling code: the one price, the code's own, or the default. */
export function priceFor(price: PricePerSegment, code: string): number {
  if (typeof price === 'number') return price;
  return price[code] ?? price.default ?? 0;
}

/** Sums of prices without float dust (0.1 + 0.2 is 0.3): six decimals is more than any price has. */
export function roundMoney(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}
