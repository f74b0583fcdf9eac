// What a CI step sees from the binary: a report gate's exit 1 and its line, the canary's exit 0 and 1.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

describe('CI gates and the canary', () => {
  it('report --fail-under exits 1 and names the share below its threshold', async () => {
    const report = join(dir.path, 'gate.report.csv');
    const rows = ['row,to,messageId,outcome,statusCode,deliveryStatus'];
    for (let i = 1; i <= 39; i++) rows.push(`${i},47410000${10 + i},m${i},accepted,0,DELIVRD`);
    rows.push('40,4741000050,m40,rejected,120,');
    await writeFile(report, `${rows.join('\n')}\n`);
    const result = await runInProcess([
      'report',
      report,
      '--fail-under',
      'accepted=99%,delivered=95%',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✖ accepted 97.5% < 99% (39 of 40)');
    expect(result.stdout).toContain('✔ delivered 100% ≥ 95% (39 of 39 accepted)');
    expect(result.stdout).toContain('below --fail-under: accepted');
  });

  it('check --simulate --await-dlr: a delivered test message is exit 0, with its timings in --json', async () => {
    const result = await runInProcess([
      'check',
      '--simulate',
      '--to',
      '+47 412 34 567',
      '--await-dlr',
      '10s',
      '--json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as { check: Record<string, unknown> };
    expect(document.check).toMatchObject({
      ok: true,
      endpoint: 'built-in simulator',
      message: { to: '4741234567', statusCode: 0 },
      delivery: {
        status: 'DELIVRD',
        delivered: true,
        sentAt: expect.any(String) as unknown,
        acceptedAfterMs: expect.any(Number) as unknown,
        reportAfterMs: expect.any(Number) as unknown,
        awaitMs: 10_000,
      },
    });
  });

  it('check --simulate --await-dlr: an undelivered test message is exit 1, one line per step', async () => {
    const result = await runInProcess([
      'check',
      '--simulate',
      '--to',
      '4741234567',
      '--await-dlr',
      '10s',
      '--dlr-mix',
      'UNDELIV=1',
    ]);
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        /^send {6}a test message to 4741234567 through built-in simulator; delivery reports to http:\/\/127\.0\.0\.1:\d+$/,
      ),
      expect.stringMatching(
        /^accepted {2}after \d+ ms: MessageId check-\w+, TransactionId \S+; waiting up to 10\.0 s for its delivery report$/,
      ),
      expect.stringMatching(/^report {4}UNDELIV after \d+ ms$/),
      '✖ canary failed: the test message was not delivered (UNDELIV)',
    ]);
  });
});
