// What a run loads before its first record: start-up is paid by every cron line and CI step, so
// the large libraries that only rare inputs need stay unloaded (see the Benchmark section).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { mobile, tempDir } from '../helpers/files.js';

const MODULE_LOG = new URL('../helpers/module-log.js', import.meta.url).href;

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
  const rows = Array.from({ length: 5 }, (_, i) => `${mobile(i)},Hello ${i}`);
  await writeFile(join(dir.path, 'campaign.csv'), `to,text\n${rows.join('\n')}\n`);
});
afterAll(() => dir.remove());

describe('a dry run with prices', () => {
  it('checks and prices ordinary mobile numbers without loading the libphonenumber-js API', async () => {
    const log = join(dir.path, 'modules.txt');
    const result = await runCli(
      ['campaign.csv', '--dry-run', '--price-per-segment', '47=0.35,default=0.5'],
      {
        cwd: dir.path,
        env: { NODE_OPTIONS: `--import ${MODULE_LOG}`, SMS_SEND_TEST_MODULE_LOG: log },
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/cost\s+1\.75/);
    const loaded = (await readFile(log, 'utf8')).trim().split('\n');
    expect(loaded.some((url) => url.includes('/dist/validate/plan.js'))).toBe(true);
    // The compiled rules need only the metadata; the API (about 90 modules) is for rare numbers.
    expect(loaded.filter((url) => url.includes('/libphonenumber-js/'))).toEqual([]);
  });
});
