// libphonenumber-js, loaded piece by piece and only when needed.
// Its package entry pulls in ~90 modules (about 50 ms of CPU and 8 MB at every start), while the
// compiled rules of number-rules.ts need only the metadata and the class that reads it, and the
// full API is asked only for the rare numbers the rules leave to it.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Max from 'libphonenumber-js/max';

const require = createRequire(import.meta.url);

let library: typeof Max | undefined;

/** The library's API over its max metadata, loaded the first time a number needs it. */
export function phoneLibrary(): typeof Max {
  return (library ??= require('libphonenumber-js/max') as typeof Max);
}

/**
 * A Metadata object over the max metadata, as `new Metadata()` from libphonenumber-js/max gives it.
 * The class's module is not in the package's exports map, so it is required by its path; the
 * rules' test against the library's own answers fails if that module ever moves or changes.
 */
export function maxMetadata(): unknown {
  const root = dirname(require.resolve('libphonenumber-js/package.json'));
  const { default: Metadata } = require(join(root, 'build', 'metadata.js')) as {
    default: new (json: unknown) => unknown;
  };
  return new Metadata(require('libphonenumber-js/metadata.max.json'));
}

/** Every country's calling code, read from the metadata, so cost estimates load no more of the library. */
export function countryCallingCodes(): string[] {
  const metadata = require('libphonenumber-js/metadata.max.json') as {
    country_calling_codes: Record<string, unknown>;
  };
  return Object.keys(metadata.country_calling_codes);
}
