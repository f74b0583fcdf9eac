// The packaged sample campaign, named so a printed command works where it is printed.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellWord } from '../shared/shell.js';

const SAMPLE = fileURLToPath(new URL('../../samples/campaign.csv', import.meta.url));
const RELATIVE = 'samples/campaign.csv';

/** The help's example of trying the sample: what to send, and the report that run writes. */
export interface SampleExample {
  /** The arguments before `--simulate`. */
  send: string;
  report: string;
}

/**
 * In the project's own folder (a clone) the sample as `samples/campaign.csv`, its report beside
 * it; from any other folder the package's copy, quoted for the shell, with a report in the
 * current folder (the package's own folder may not be writable).
 */
export function sampleExample(cwd = process.cwd()): SampleExample {
  if (resolve(cwd, RELATIVE) === SAMPLE) {
    return { send: RELATIVE, report: 'samples/campaign.report.csv' };
  }
  return {
    send: `${shellWord(SAMPLE)} --report campaign.report.csv`,
    report: 'campaign.report.csv',
  };
}

/** The absolute path, for a banner read from anywhere. */
export function samplePath(): string {
  return SAMPLE;
}
