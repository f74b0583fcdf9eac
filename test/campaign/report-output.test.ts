// `report ID --output` with a state directory: the report its newest run wrote on this host, written
// out as it is; the report itself is not written over.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;
beforeEach(async () => {
  dir = await tempDir();
  sim = await startSimulator({ seed: 2 });
  await writeCampaignCsv(join(dir.path, 'campaign.csv'), 40);
});
afterEach(async () => {
  await sim.stop();
  await dir.remove();
});

const env = () => ({
  SMS_SEND_STATE_DIR: join(dir.path, 'state'),
  SMS_SEND_USERNAME: 'u',
  SMS_SEND_PASSWORD: 'p',
});

async function sentCampaign(): Promise<{ id: string; report: string }> {
  const report = join(dir.path, 'campaign.report.csv');
  const sent = await runInProcess(
    [join(dir.path, 'campaign.csv'), '--endpoint', sim.url, '--report', report, '--yes'],
    { env: env() },
  );
  expect(sent.code, sent.stderr).toBe(0);
  const listed = await runInProcess(['campaigns', '--json'], { env: env() });
  const id = (JSON.parse(listed.stdout) as { campaigns: { id: string }[] }).campaigns[0]!.id;
  return { id, report };
}

describe('report ID --output with a state directory', () => {
  it('writes the report its run wrote here, byte for byte, and counts it', async () => {
    const { id, report } = await sentCampaign();
    const output = join(dir.path, 'copy.csv');
    const written = await runInProcess(['report', id.slice(0, 8), '--output', output], {
      env: env(),
    });
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr).toBe(`report written: ${output} (campaign ${id}'s report, ${report})\n`);
    expect((await readFile(output)).equals(await readFile(report))).toBe(true);
    expect(written.stdout).toContain('copy.csv: 40 rows');
  });

  it('refuses to write over the report itself (exit 2)', async () => {
    const { id, report } = await sentCampaign();
    const before = await readFile(report);
    const refused = await runInProcess(['report', id, '--output', report], { env: env() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("is the campaign's report itself: name another file");
    expect((await readFile(report)).equals(before)).toBe(true);
  });
});
