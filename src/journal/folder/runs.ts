// A campaign's runs for its page, in the state directory: one small file beside its manifest,
// each run's record replaced as the run keeps it again.
import { readIfExists, replaceFile } from '../../shared/files.js';
import type { RunRecord } from '../store.js';

/** The file's shape: its version, and the runs in the order they began. */
interface RunsFile {
  v: 4;
  runs: RunRecord[];
}

/** The runs kept at `path`; none when none were kept or the file cannot be read. */
export async function readRuns(path: string): Promise<RunRecord[]> {
  const text = await readIfExists(path);
  if (text === undefined) return [];
  try {
    const file = JSON.parse(text) as RunsFile;
    return file.v === 4 && Array.isArray(file.runs) ? file.runs : [];
  } catch {
    // A torn file only costs the page its time charts: the report is the record.
    return [];
  }
}

/** Keeps `record` at `path`, in place of the run's earlier record: written aside and renamed. */
export async function keepRun(path: string, record: RunRecord): Promise<void> {
  const runs = await readRuns(path);
  const at = runs.findIndex((r) => r.key === record.key);
  if (at === -1) runs.push(record);
  else runs[at] = record;
  const file: RunsFile = { v: 4, runs };
  // Only the page's time charts depend on it: not worth a sync of its own.
  await replaceFile(path, `${JSON.stringify(file)}\n`, { durable: false });
}
