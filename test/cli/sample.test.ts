// The help's first example names the sample campaign so that it works where the help is read.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sampleExample } from '../../src/cli/sample.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('sampleExample', () => {
  it('is samples/campaign.csv in the project folder, its report beside it', () => {
    expect(sampleExample(ROOT)).toEqual({
      send: 'samples/campaign.csv',
      report: 'samples/campaign.report.csv',
    });
  });

  it("is the package's own file, absolute, from any other folder, its report in that folder", () => {
    const example = sampleExample(tmpdir());
    const path = `${ROOT}samples/campaign.csv`;
    expect(existsSync(path)).toBe(true);
    // Quoted only where the shell needs it.
    const quoted = /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path}'`;
    expect(example).toEqual({
      send: `${quoted} --report campaign.report.csv`,
      report: 'campaign.report.csv',
    });
  });
});
