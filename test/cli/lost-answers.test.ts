// Answers the gateway gave that no sync could make durable (the journal's and the report's syncs
// both failing, writes going through) are never called kept: the stop lists each one, with its
// MessageId and TransactionId, on stderr and in the --json document, for the operator to keep.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { injectDiskFault } from '../../src/shared/disk.js';
import { writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';
import { suiteFolder } from '../helpers/suite.js';

const suite = suiteFolder();
afterEach(() => injectDiskFault(undefined));

/** From the journal's `goodSyncs`+1th sync on, every sync of the journal and the report fails with EIO. */
function syncsFailAfter(goodSyncs: number): void {
  let syncs = 0;
  injectDiskFault((op, path) => {
    if (op !== 'datasync' && op !== 'sync') return undefined;
    if (!path.endsWith('journal.ndjson') && !path.endsWith('.report.csv')) return undefined;
    if (path.endsWith('journal.ndjson') && ++syncs <= goodSyncs) return undefined;
    if (syncs <= goodSyncs) return undefined;
    return { error: Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }) };
  });
}

describe('answers no sync made durable', () => {
  it.each([false, true])('are listed to keep, never called kept (--json: %s)', async (json) => {
    const sim = await suite.simulator({ faults: { latencyMs: 5 } });
    const name = json ? 'lost-json' : 'lost';
    await writeCampaignCsv(join(suite.path, `${name}.csv`), 30);
    syncsFailAfter(2);
    const run = await runInProcess(
      [
        `${name}.csv`,
        '--endpoint',
        sim.url,
        '--batch-size',
        '5',
        '--concurrency',
        '1',
        '--outage-grace',
        '0',
        ...(json ? ['--json'] : []),
      ],
      {
        cwd: suite.path,
        env: {
          SMS_SEND_USERNAME: 'u',
          SMS_SEND_PASSWORD: 'p',
          SMS_SEND_STATE_DIR: join(suite.path, `${name}-state`),
        },
      },
    );
    expect(run.code, run.stderr).toBe(6);
    const text = run.stderr + run.stdout;
    expect(text).not.toContain('only in the report');
    expect(run.stderr).toMatch(
      /\d+ answers? the gateway gave could not be made durable anywhere \(keep this list\):/,
    );
    for (const entry of sim.ledger.slice(-5)) {
      expect(run.stderr).toMatch(
        new RegExp(
          `row \\d+  MessageId ${entry.messageId}  accepted  StatusCode 0  TransactionId ${entry.transactionId}`,
        ),
      );
    }
    // What the stop says the resume does, the resume does: it takes the answers the report
    // kept (the writes went through; only their syncs failed) and sends none of them again.
    if (!json)
      expect(run.stderr).toContain(
        '--resume takes those the report still holds and reports the rest unknown, never sending them again',
      );
    injectDiskFault(undefined);
    const sent = sim.ledger.length;
    const last = sim.ledger.at(-1)!;
    const resumed = await runInProcess(
      [`${name}.csv`, '--endpoint', sim.url, '--resume', '--json'],
      {
        cwd: suite.path,
        env: {
          SMS_SEND_USERNAME: 'u',
          SMS_SEND_PASSWORD: 'p',
          SMS_SEND_STATE_DIR: join(suite.path, `${name}-state`),
        },
      },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = (JSON.parse(resumed.stdout) as { summary: { byOutcome: Record<string, number> } })
      .summary.byOutcome;
    expect(after).toMatchObject({ accepted: 30, unknown: 0 });
    expect(sim.ledger.length - sent).toBe(30 - sent);
    if (json) {
      const { summary } = JSON.parse(run.stdout) as {
        summary: {
          stateLeft: { inReport: number; lost: { messageId: string; transactionId: string }[] };
        };
      };
      expect(summary.stateLeft.inReport).toBe(0);
      expect(summary.stateLeft.lost).toContainEqual(
        expect.objectContaining({ messageId: last.messageId, transactionId: last.transactionId }),
      );
    }
  });
});
