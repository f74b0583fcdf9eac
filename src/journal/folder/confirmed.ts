// Rows a delivery report confirmed, recorded in their campaign's state, so its counts and a --resume agree with the report.
import { resolve } from 'node:path';
import { systemClock } from '../../shared/clock.js';
import { LockedError } from '../../shared/errors.js';
import type { RowResult } from '../../message/outcome.js';
import { resultLine } from '../lines.js';
import { acquireLock, type Lock } from '../lock.js';
import { readJournalFile } from '../reading.js';
import { campaignPaths, listCampaigns, readManifest, writeManifest } from './campaigns.js';
import { JournalWriter } from './journal.js';

/**
 * Finds the campaign whose newest report is `reportPath` and records the rows as accepted: a
 * journal result (so a --resume, even with --retry-unknown, never sends them again, and rewrites
 * the report with them accepted) and the manifest's counts. Returns the campaign's ID, or
 * undefined when no campaign wrote that report or a run holds the campaign (nothing is changed;
 * the report itself is already right).
 */
export async function recordConfirmed(
  stateDir: string,
  reportPath: string,
  rows: readonly RowResult[],
): Promise<string | undefined> {
  if (rows.length === 0) return undefined;
  const path = resolve(reportPath);
  const entry = (await listCampaigns(stateDir)).find((e) => e.manifest.reports.at(-1) === path);
  if (!entry) return undefined;
  const paths = campaignPaths(stateDir, entry.manifest.id);
  let lock: Lock;
  try {
    lock = await acquireLock(paths.lock);
  } catch (error) {
    if (error instanceof LockedError) return undefined;
    throw error;
  }
  try {
    const manifest = await readManifest(paths.manifest);
    if (!manifest) return undefined;
    // Only rows the journal itself leaves open (unknown, or sent without an answer) are settled:
    // a report row that names another campaign's record must never settle one of this one's.
    const state = await readJournalFile(paths.journal);
    const open = rows.filter((row) => {
      const outcome = state?.results.outcome(row.row);
      return outcome === 'unknown' || (outcome === undefined && state?.inFlight.has(row.row));
    });
    if (open.length === 0) return manifest.id;
    const journal = await JournalWriter.open(paths.journal);
    try {
      await journal.append(resultLine('dlr', open));
    } finally {
      await journal.close();
    }
    const moved = Math.min(open.length, manifest.counts.unknown);
    await writeManifest(paths.manifest, {
      ...manifest,
      counts: {
        ...manifest.counts,
        unknown: manifest.counts.unknown - moved,
        accepted: manifest.counts.accepted + moved,
      },
      updatedAt: new Date(systemClock.now()).toISOString(),
    });
    return manifest.id;
  } finally {
    await lock.release();
  }
}
