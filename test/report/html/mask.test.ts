// No recipient's number appears whole on the page: a number planted in every text field the page
// can show (report cells, the campaign's manifest and timeline, file names) comes out masked.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignPage } from '../../../src/report/html/campaign-page.js';
import { DLR_COLUMNS } from '../../../src/dlr/matching.js';
import { campaignPaths, writeManifest } from '../../../src/journal/folder/campaigns.js';
import { keepRun } from '../../../src/journal/folder/runs.js';
import { REPORT_COLUMNS } from '../../../src/report/row.js';
import { tempDir } from '../../helpers/files.js';
import { folderState } from '../../helpers/state.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.remove();
});

/** Each field its own number, written as people write them, so a leak names its field. */
const planted = new Map<string, string>();
const FORMS = [
  (n: string) => `+47${n}`,
  (n: string) => `47${n}`,
  (n: string) => `+47 ${n.slice(0, 3)} ${n.slice(3, 5)} ${n.slice(5)}`,
  (n: string) => `0047-${n}`,
  (n: string) => `+47${n}x`,
];
function plant(field: string): string {
  const digits = String(91_100_000 + planted.size);
  const text = FORMS[planted.size % FORMS.length]!(digits);
  planted.set(field, text);
  return text;
}

const T0 = Date.UTC(2026, 10, 2, 9, 0, 0);
const COLUMNS = [...REPORT_COLUMNS, ...DLR_COLUMNS];

function csvLine(cells: Record<string, string | number>): string {
  return COLUMNS.map((c) => `"${String(cells[c] ?? '').replace(/"/g, '""')}"`).join(',');
}

/** A report whose every text cell, in every row that needs attention, holds a number. */
function reportRows(): string[] {
  const row = (outcome: string, n: number) => ({
    row: n,
    to: plant(`to (${outcome})`),
    messageId: plant(`messageId (${outcome})`),
    outcome,
    statusCode: outcome === 'rejected' ? 120 : '',
    statusDescription: `refused: ${plant(`statusDescription (${outcome})`)}`,
    transactionId: plant(`transactionId (${outcome})`),
    extraInfo: `ref=${plant(`extraInfo (${outcome})`)}`,
    attempts: 1,
    error: `${plant(`error (${outcome})`)} not valid`,
    segments: 2,
    encoding: `GSM ${plant(`encoding (${outcome})`)}`,
    deliveryStatus: outcome === 'accepted' ? `UNDELIV ${plant('deliveryStatus')}` : '',
    deliveredAt: outcome === 'accepted' ? new Date(T0 + 5000).toISOString() : '',
  });
  return ['accepted', 'rejected', 'failed', 'unknown', 'invalid'].map((o, i) =>
    csvLine(row(o, i + 1)),
  );
}

describe('the page masks numbers everywhere', () => {
  it('shows no planted number whole, in any field, title or attribute', async () => {
    const stateDir = process.env.SMS_SEND_STATE_DIR!;
    const folder = join(dir.path, `in ${plant('folder')}`);
    await mkdir(folder, { recursive: true });
    const report = join(folder, `${plant('report file')}.csv`);
    await writeFile(report, [COLUMNS.join(','), ...reportRows()].join('\n') + '\n');
    const id = `camp-${plant('campaign name')}`;
    const paths = campaignPaths(stateDir, id);
    await mkdir(paths.dir, { recursive: true });
    const target = `http://127.0.0.1:9/${plant('endpoint path')}`;
    await writeManifest(paths.manifest, {
      v: 1,
      id,
      named: true,
      contentHash: 'f'.repeat(64),
      inputs: [
        { path: join(folder, `${plant('input file')}.csv`), sha256: 'a'.repeat(64), bytes: 1 },
      ],
      target,
      reports: [report],
      createdAt: new Date(T0).toISOString(),
      startedAt: new Date(T0).toISOString(),
      finishedAt: new Date(T0 + 9000).toISOString(),
      updatedAt: new Date(T0 + 9000).toISOString(),
      status: 'finished',
      runs: 1,
      records: 5,
      counts: { accepted: 1, rejected: 1, failed: 1, unknown: 1, invalid: 1, skipped: 0 },
      shape: { target: 'gateway', mapping: {}, defaults: { Gateway: plant('Gateway') } },
      followUp: { of: plant('follow-up of'), include: [] },
      pricing: { pricePerSegment: 0.5 },
    });
    await keepRunOf(join(paths.dir, 'timeline.json'), {
      startedAt: T0,
      sendingFrom: T0,
      finishedAt: T0 + 9000,
      command: `sms-send c.csv --from ${plant('command')}`,
      target: plant('timeline target'),
      settings: { batchSize: 10, concurrency: 1, window: `09:00-21:00 ${plant('window')}` },
      step: 1000,
      buckets: [[T0, 2, 1, 40, 40]],
      pauses: [],
      sent: [[1, 5, T0 + 1000]],
    });
    const { html } = await campaignPage({ what: id, state: folderState(stateDir) });
    expect(planted.size).toBeGreaterThan(20);
    for (const [field, text] of planted) {
      const digits = text.replace(/\D/g, '').replace(/^00/, '');
      expect(html, field).not.toContain(digits);
      expect(html, field).not.toContain(digits.slice(2));
      expect(html, field).not.toContain(text);
    }
    // Masked, not dropped: the rows and the descriptions are there, ending as the numbers did,
    // each masked number in a span that keeps it on one line.
    expect(html).toContain('refused: <span class="nb">+47••••••');
    expect(html).toContain('<td><span class="nb">47••••••');
  });
});

/** Keeps `data` as the campaign's one run, as the store keeps a run's record. */
function keepRunOf(path: string, data: object): Promise<void> {
  return keepRun(path, { key: 'run 1', host: 'this host', data });
}
