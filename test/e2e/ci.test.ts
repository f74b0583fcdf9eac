// What a CI step sees from the binary: a report gate's exit 1 and its line.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

describe.concurrent('CI gates', () => {
  it('report --fail-under exits 1 and names the share below its threshold', async () => {
    const report = join(dir.path, 'gate.report.csv');
    const rows = ['row,to,messageId,outcome,statusCode,deliveryStatus'];
    for (let i = 1; i <= 39; i++) rows.push(`${i},47410000${10 + i},m${i},accepted,0,DELIVRD`);
    rows.push('40,4741000050,m40,rejected,120,');
    await writeFile(report, `${rows.join('\n')}\n`);
    const result = await runCli(['report', report, '--fail-under', 'accepted=99%,delivered=95%']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✖ accepted 97.5% < 99% (39 of 40)');
    expect(result.stdout).toContain('✔ delivered 100% ≥ 95% (39 of 39 accepted)');
    expect(result.stdout).toContain('below --fail-under: accepted');
  });
});
