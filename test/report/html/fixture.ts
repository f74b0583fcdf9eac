// A campaign for the page's tests, written as sms-send would leave it: a report with every outcome
// and delivery status, a manifest and a timeline in the state directory; texts can be hostile.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { campaignPaths, writeManifest } from '../../../src/journal/folder/campaigns.js';
import type { Manifest } from '../../../src/journal/manifest.js';
import { keepRun } from '../../../src/journal/folder/runs.js';
import { DLR_COLUMNS } from '../../../src/dlr/matching.js';
import { REPORT_COLUMNS } from '../../../src/report/row.js';

/** Texts that break out of HTML if they are not escaped, and one that is not valid UTF-16. */
export const HOSTILE = [
  '<script>window.__pwned=1</script>',
  '"><img src=x onerror="window.__pwned=2">',
  "' onmouseover='window.__pwned=3' x='",
  '</title><script>window.__pwned=4</script>',
  '</style><svg onload="window.__pwned=5">',
  'lone \uD800 surrogate',
] as const;

export interface Fixture {
  id: string;
  report: string;
  rows: number;
}

const T0 = Date.UTC(2026, 10, 2, 9, 0, 0);

function csvCell(value: string | number | undefined): string {
  return value === undefined ? '' : `"${String(value).replace(/"/g, '""')}"`;
}

/** A report's columns after delivery reports were applied. */
const COLUMNS = [...REPORT_COLUMNS, ...DLR_COLUMNS] as const;

type Row = Partial<Record<(typeof COLUMNS)[number], string | number>>;

/** The rows: 40 accepted (with delivery reports), rejections by hostile descriptions, the rest. */
function rows(hostile: boolean): Row[] {
  const list: Row[] = [];
  const add = (row: Row) => list.push({ row: list.length + 1, attempts: 1, ...row });
  const text = (i: number) => (hostile ? HOSTILE[i % HOSTILE.length]! : `reason ${i}`);
  for (let i = 0; i < 40; i++) {
    const status = i < 30 ? 'DELIVRD' : i < 34 ? 'EXPIRED' : i < 38 ? 'UNDELIV' : undefined;
    add({
      to: `4741${String(100000 + i)}`,
      outcome: 'accepted',
      statusCode: 0,
      statusDescription: 'Accepted',
      segments: i % 4 === 0 ? 3 : 1,
      encoding: i % 4 === 0 ? 'UCS-2' : 'GSM-7',
      deliveryStatus: status === 'UNDELIV' && hostile ? `UNDELIV ${text(i)}` : status,
      deliveredAt:
        status === undefined ? undefined : new Date(T0 + 1000 * (i + 1) + 2000 * i).toISOString(),
    });
  }
  for (let i = 0; i < HOSTILE.length; i++) {
    add({
      to: hostile ? `46${text(i)}` : `4670${String(100000 + i)}`,
      outcome: 'rejected',
      statusCode: 101 + i,
      statusDescription: text(i),
      segments: 1,
      encoding: hostile && i === 0 ? text(1) : 'GSM-7',
    });
  }
  for (let i = 0; i < 3; i++)
    add({
      to: `4580${100000 + i}`,
      outcome: 'failed',
      // A number in a text is masked there too (`+45••••••01`), and kept whole on one line.
      error: hostile
        ? text(i + 2)
        : `no route to +4580 10 00 0${i}: the operator refused it, its owner having moved to another network (reason ${i + 2})`,
      segments: 1,
      encoding: 'GSM-7',
    });
  for (let i = 0; i < 2; i++)
    add({
      to: `4741${200000 + i}`,
      outcome: 'unknown',
      error: 'timeout',
      segments: 1,
      encoding: 'GSM-7',
    });
  add({ to: 'not-a-number', outcome: 'invalid', attempts: 0, error: text(4) });
  for (let i = 0; i < 4; i++) {
    add({
      to: `4741${300000 + i}`,
      outcome: 'skipped',
      attempts: 0,
      error: i < 2 ? 'suppressed (optouts.csv)' : 'limit',
      segments: 1,
      encoding: 'GSM-7',
    });
  }
  return list;
}

/** Writes the campaign into the state directory and its report into `dir`. */
export async function writeFixture(
  dir: string,
  stateDir: string,
  hostile: boolean,
): Promise<Fixture> {
  const id = hostile ? `x${HOSTILE[1]}` : 'c0ffee0123456789';
  const report = join(
    dir,
    hostile ? `r${HOSTILE[0].replace(/\//g, '_')}.csv` : 'campaign.report.csv',
  );
  const list = rows(hostile);
  const lines = [
    COLUMNS.join(','),
    ...list.map((r) => COLUMNS.map((c) => csvCell(r[c])).join(',')),
  ];
  await writeFile(report, `${lines.join('\n')}\n`);
  const paths = campaignPaths(stateDir, id);
  await mkdir(paths.dir, { recursive: true });
  const manifest: Manifest = {
    v: 1,
    id,
    named: hostile,
    contentHash: 'f'.repeat(64),
    inputs: [
      {
        path: join(dir, hostile ? `${HOSTILE[3]}.csv` : 'campaign.csv'),
        sha256: 'a'.repeat(64),
        bytes: 100,
      },
    ],
    target: hostile ? `http://user:Pw-PAGE-9@127.0.0.1:1/${HOSTILE[2]}` : 'simulator',
    reports: [report],
    createdAt: new Date(T0 - 5000).toISOString(),
    startedAt: new Date(T0).toISOString(),
    finishedAt: new Date(T0 + 240_000).toISOString(),
    updatedAt: new Date(T0 + 240_000).toISOString(),
    status: 'finished',
    runs: 1,
    records: list.length,
    counts: {
      accepted: 40,
      rejected: HOSTILE.length,
      invalid: 1,
      failed: 3,
      unknown: 2,
      skipped: 4,
    },
    shape: {
      target: hostile ? 'gateway' : 'simulator',
      mapping: {},
      defaults: { Gateway: hostile ? HOSTILE[5] : '99700999' },
    },
  };
  await writeManifest(paths.manifest, manifest);
  await keepRunOf(join(paths.dir, 'timeline.json'), {
    startedAt: T0,
    sendingFrom: T0,
    finishedAt: T0 + 240_000,
    command: hostile ? `sms-send c.csv --text '${HOSTILE[0]}'` : 'sms-send campaign.csv --simulate',
    target: manifest.target,
    settings: {
      batchSize: 10,
      concurrency: 2,
      rate: 20,
      ...(hostile ? { window: HOSTILE[4] } : {}),
    },
    step: 1000,
    buckets: [
      [T0, 30, 3, 300, 120],
      [T0 + 180_000, 21, 3, 900, 400],
    ],
    pauses: [['window', T0 + 60_000, T0 + 180_000]],
    sent: [
      [1, 30, T0 + 1000],
      [31, list.length, T0 + 181_000],
    ],
  });
  return { id, report, rows: list.length };
}

/** Keeps `data` as the campaign's one run, as the store keeps a run's record. */
function keepRunOf(path: string, data: object): Promise<void> {
  return keepRun(path, { key: 'run 1', host: 'this host', data });
}
