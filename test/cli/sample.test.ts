// The help's first example names the sample campaign so that it works where the help is read.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sampleCampaign } from '../../src/cli/sample.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('sampleCampaign', () => {
  it('is samples/campaign.csv in the project folder', () => {
    expect(sampleCampaign(ROOT)).toBe('samples/campaign.csv');
  });

  it('is the package’s own file, absolute, from any other folder', () => {
    const named = sampleCampaign(tmpdir());
    expect(named).toBe(`${ROOT}samples/campaign.csv`);
    expect(existsSync(named)).toBe(true);
  });
});
