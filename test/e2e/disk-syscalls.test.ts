// Real system calls fail under a real sms-send process (a library preloaded into it, built by the
// test: test/fixtures/fault/fault.c), so the code meets the errors, codes and errnos its Node line
// really gives: errno 122 (EDQUOT, which Node has no name for), a mkdir that fails once, the
// spool's and the report's sync, every sync failing with the data gone when the process ends.
// Each run is then finished as it says, and checked against the gateway's own ledger.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { campaignIdentity } from '../../src/journal/identity.js';
import { findDuplicates, type Simulator } from '../../src/simulator/index.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { ERRNO, faultEnv, type RealFault } from '../helpers/fault-shim.js';
import { parseCsv, writeCampaignCsv } from '../helpers/files.js';
import { suiteFolder } from '../helpers/suite.js';

const suite = suiteFolder();
const RECORDS = 120;

interface Case {
  name: string;
  /** The fault, given the case's folder (its state directory and report are inside it). */
  fault: (dir: string) => RealFault;
  code: number;
  says: RegExp;
}

const CASES: Case[] = [
  {
    name: 'EDQUOT renaming the manifest into place at the start',
    fault: (dir) => ({ path: join(dir, 'state'), ops: ['rename'], errno: ERRNO.EDQUOT }),
    code: 2,
    says: /campaign state could not be written: disk quota exceeded \(EDQUOT\); nothing was sent/,
  },
  {
    name: 'EDQUOT making the state directory',
    fault: (dir) => ({ path: join(dir, 'state'), ops: ['mkdir'], errno: ERRNO.EDQUOT }),
    code: 2,
    says: /the state directory .* cannot be written: disk quota exceeded \(EDQUOT\)/,
  },
  {
    name: "EDQUOT on the journal's writes mid-send",
    fault: (dir) => ({
      path: join(dir, 'state', 'campaigns', 'c', 'journal.ndjson'),
      ops: ['write'],
      errno: ERRNO.EDQUOT,
      after: 4,
    }),
    code: 6,
    says: /campaign state could not be written: disk quota exceeded \(EDQUOT\): /,
  },
  {
    name: 'ENOSPC making a folder, once',
    fault: (dir) => ({ path: join(dir, 'state'), ops: ['mkdir'], errno: ERRNO.ENOSPC, times: 1 }),
    code: 0,
    says: /120 of 120 messages accepted/,
  },
  {
    // Node 22 and 24 report this one as ENOSPC, Node 20 as ENOENT: both are made again once.
    name: 'ENOSPC making the campaigns folder, once',
    fault: (dir) => ({
      path: join(dir, 'state', 'campaigns'),
      ops: ['mkdir'],
      errno: ERRNO.ENOSPC,
      times: 1,
    }),
    code: 0,
    says: /120 of 120 messages accepted/,
  },
  {
    name: 'EIO syncing the spool',
    fault: (dir) => ({
      path: join(dir, 'state', 'campaigns', 'c', 'spool'),
      ops: ['sync'],
      errno: ERRNO.EIO,
    }),
    code: 2,
    says: /cannot write the campaign's spool .*: i\/o error \(EIO\)\. Nothing was sent/,
  },
  {
    name: 'EIO syncing the report, its pages dropped',
    fault: (dir) => ({
      path: join(dir, 'c.report.csv'),
      ops: ['sync'],
      errno: ERRNO.EIO,
      drop: 'sync',
    }),
    code: 6,
    says: /the report .* could not be written: i\/o error \(EIO\): 120 records settled and kept, 0 not sent/,
  },
  {
    // The 15th sync of a fresh run, one request at a time, is the second batch's intent's.
    name: 'every sync failing from the 15th, what they covered gone when the process ends',
    fault: (dir) => ({ path: dir, ops: ['sync'], errno: ERRNO.EIO, after: 14, drop: 'exit' }),
    code: 6,
    says: /could not be made durable anywhere \(rows [\d, -]+\)/,
  },
];

const ENV = { SMS_SEND_USERNAME: 'u', SMS_SEND_PASSWORD: 'p' };

async function sendIn(dir: string, sim: Simulator, extra: string[], env = {}): Promise<CliResult> {
  return runCli(
    [
      join(dir, 'c.csv'),
      '--endpoint',
      sim.url,
      '--campaign',
      'c',
      '--batch-size',
      '20',
      '--outage-grace',
      '0',
      // One request at a time: the Nth sync of a run is the same one every time.
      '--concurrency',
      '1',
      ...extra,
    ],
    { cwd: dir, env: { ...ENV, SMS_SEND_STATE_DIR: join(dir, 'state'), ...env } },
  );
}

describe.concurrent.each(CASES)('$name', (c) => {
  it('ends with its exit code and the cause in words; finished as it says, each record once', async () => {
    const sim = await suite.simulator();
    const dir = join(suite.path, c.name.replace(/\W+/g, '-'));
    await mkdir(dir, { recursive: true });
    await writeCampaignCsv(join(dir, 'c.csv'), RECORDS);
    const faulty = await sendIn(dir, sim, [], faultEnv(c.fault(dir)));
    expect(faulty.stderr).not.toContain('unexpected error');
    expect(faulty.stderr).not.toMatch(/Unknown system error|UNKNOWN/);
    expect(faulty.code, faulty.stderr).toBe(c.code);
    expect(`${faulty.stdout}${faulty.stderr}`).toMatch(c.says);
    const accepted = new Map(sim.ledger.map((entry) => [entry.messageId, entry]));

    // The same line, with --resume when it stopped mid-send, and no fault: the campaign ends.
    if (c.code !== 0) {
      const again = await sendIn(dir, sim, c.code === 6 ? ['--resume'] : [], {});
      expect([0, 1], again.stderr).toContain(again.code);
    }
    expect(findDuplicates(sim.ledger)).toEqual([]);
    const rows = parseCsv(await readFile(join(dir, 'c.report.csv'), 'utf8'));
    expect(rows.map((row) => Number(row.row)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: RECORDS }, (_, i) => i + 1),
    );
    // Every answer the gateway gave is in the report, or unknown where no sync could keep it.
    const { stem } = campaignIdentity('', 'c');
    for (const row of rows) {
      expect(row.messageId!.startsWith(`${stem}-`)).toBe(true);
      const entry = accepted.get(row.messageId!);
      if (!entry) continue;
      if (row.outcome === 'accepted') expect(row.transactionId).toBe(entry.transactionId);
      else expect(row.outcome).toBe('unknown');
    }
  });
});
