// The packaged sample campaign, named so a printed command works where it is printed.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SAMPLE = fileURLToPath(new URL('../../samples/campaign.csv', import.meta.url));
const RELATIVE = 'samples/campaign.csv';

/**
 * `samples/campaign.csv` in the project's own folder (a clone), else the package's absolute path:
 * an installed sms-send's examples then work from any folder.
 */
export function sampleCampaign(cwd = process.cwd()): string {
  return resolve(cwd, RELATIVE) === SAMPLE ? RELATIVE : SAMPLE;
}

/** The absolute path, for a banner read from anywhere. */
export function samplePath(): string {
  return SAMPLE;
}
