// The spool follows the journal's rule: data whose sync failed is treated as not written, and
// nothing is posted that did not come from a spool line read back whole. A spool whose pages were
// dropped (it reads back short, or as zeros) stops the run with nothing of it sent; --resume
// validates the input again and sends each record once.
import { open, readFile, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { injectDiskFault } from '../../src/shared/disk.js';
import { findDuplicates, type Simulator } from '../../src/simulator/index.js';
import { writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';
import { suiteFolder } from '../helpers/suite.js';

const suite = suiteFolder();
const RECORDS = 40;
afterEach(() => injectDiskFault(undefined));

/** Runs the send in its own folder and state directory. */
async function world(
  name: string,
): Promise<{ sim: Simulator; run: (extra?: string[]) => ReturnType<typeof runInProcess> }> {
  const sim = await suite.simulator();
  const dir = join(suite.path, name);
  await writeCampaignCsv(`${dir}.csv`, RECORDS);
  const env = {
    SMS_SEND_USERNAME: 'u',
    SMS_SEND_PASSWORD: 'p',
    SMS_SEND_STATE_DIR: join(suite.path, `${name}-state`),
  };
  const line = [`${dir}.csv`, '--endpoint', sim.url, '--batch-size', '10'];
  return { sim, run: (extra = []) => runInProcess([...line, ...extra], { env }) };
}

/** Once the send pass opens the journal (the spool is written, synced and closed), `damage` it. */
function onceSending(damage: (spool: string) => Promise<void>): void {
  let done = false;
  injectDiskFault((op, path) => {
    if (done || op !== 'open' || !path.endsWith('journal.ndjson')) return undefined;
    done = true;
    void damage(join(path, '..', 'spool'));
    return undefined;
  });
}

describe('a spool that does not read back as written', () => {
  it.each([
    [
      'reads back as zeros',
      // Overwritten in place: truncating first would let a read in between find it empty.
      async (spool: string) => {
        const file = await open(spool, 'r+');
        await file.write(Buffer.alloc((await file.stat()).size), 0, undefined, 0);
        await file.close();
      },
      'its last line is cut short',
    ],
    ['reads back empty', (spool: string) => truncate(spool, 0), `0 of its ${RECORDS} lines`],
  ] as const)(
    '%s: nothing posted, exit 6; --resume validates again and sends each once',
    async (name, damage, says) => {
      const { sim, run } = await world(name.replace(/\W+/g, '-'));
      // The damage is done synchronously enough: the spool is first read after the journal opens.
      onceSending(async (spool) => {
        const bytes = await readFile(spool);
        expect(bytes.length).toBeGreaterThan(0);
        await damage(spool);
      });
      const stopped = await run();
      injectDiskFault(undefined);
      expect(stopped.code, stopped.stderr).toBe(6);
      expect(stopped.stderr).toContain('does not read back as written');
      expect(stopped.stderr).toContain(says);
      expect(sim.requests).toHaveLength(0);

      const resumed = await run(['--resume']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(sim.ledger).toHaveLength(RECORDS);
      expect(findDuplicates(sim.ledger)).toEqual([]);
    },
  );

  it('a spool whose sync fails is never read: exit 2, nothing sent; the next run sends', async () => {
    const { sim, run } = await world('sync-fails');
    injectDiskFault((op, path) =>
      op === 'datasync' && path.endsWith('/spool')
        ? { error: Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }) }
        : undefined,
    );
    const refused = await run();
    injectDiskFault(undefined);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cannot write the campaign's spool .*i\/o error \(EIO\)/);
    expect(sim.requests).toHaveLength(0);
    const sent = await run();
    expect(sent.code, sent.stderr).toBe(0);
    expect(sim.ledger).toHaveLength(RECORDS);
  });
});
