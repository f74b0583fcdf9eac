// libphonenumber-js, through its documented entry points only, loaded the first time a number needs it.
// A global install resolves the version range afresh, so a file path inside the package could move
// under any release; its exports map ("./core", "./max", "./metadata.max.json") is what it promises.
import { createRequire } from 'node:module';
import type * as Core from 'libphonenumber-js/core';
import type * as Max from 'libphonenumber-js/max';

const require = createRequire(import.meta.url);

let library: typeof Max | undefined;

/** The library's API over its max metadata. */
export function phoneLibrary(): typeof Max {
  return (library ??= require('libphonenumber-js/max') as typeof Max);
}

/**
 * A Metadata object over the max metadata: the README's `new Metadata(metadata)` from
 * libphonenumber-js/core, with the metadata from libphonenumber-js/metadata.max.json.
 */
export function maxMetadata(): unknown {
  const { Metadata } = require('libphonenumber-js/core') as typeof Core;
  return new Metadata(require('libphonenumber-js/metadata.max.json') as Core.MetadataJson);
}

/** The calling code of every country, so cost estimates need not parse each number. */
export function countryCallingCodes(): string[] {
  const { getCountries, getCountryCallingCode } = phoneLibrary();
  return getCountries().map((country) => getCountryCallingCode(country));
}
