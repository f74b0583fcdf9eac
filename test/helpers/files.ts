// Temporary folders and generated campaigns for tests; everything is removed after each suite.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function tempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'sms-send-test-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/**
 * A temporary folder in memory (Linux's /dev/shm) where there is one, else tempDir(): for tests
 * that make thousands of campaigns whose disk faults are injected, where a real disk's syncs
 * would only add waiting.
 */
export async function memoryDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const shm = '/dev/shm';
  const path = await mkdtemp(join(shm, 'sms-send-test-')).catch(() => undefined);
  if (path === undefined) return tempDir();
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A valid Norwegian mobile number for row `i` (4-series, 8 national digits). */
export function mobile(i: number): string {
  return `47${41000000 + i}`;
}

/** Writes a CSV of `count` valid records with to,name,text columns. */
export async function writeCampaignCsv(file: string, count: number): Promise<void> {
  const lines = ['to,name,text'];
  for (let i = 0; i < count; i++) lines.push(`${mobile(i)},Name ${i},Hello number ${i}`);
  await writeFile(file, `${lines.join('\n')}\n`);
}

/** Minimal RFC 4180 reader for asserting on reports (quoted fields, doubled quotes). */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let field = '';
  let row: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else if (ch !== '\r') field += ch;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  const [header, ...body] = rows;
  return body.map((cells) => Object.fromEntries(header!.map((name, i) => [name, cells[i] ?? ''])));
}
