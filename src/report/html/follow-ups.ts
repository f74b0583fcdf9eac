// A campaign's follow-ups as its page tells them, read from their own reports: each one named with
// what it settled, and which of the campaign's rows were re-sent and accepted there.
import type { CampaignEntry } from '../../journal/state.js';
import { isFile } from '../../shared/files.js';
import { summarizeReport } from '../read.js';

/** A follow-up campaign (`retry`) of the page's campaign, or of one of its follow-ups. */
export interface FollowUpFacts {
  id: string;
  /** The campaign whose records it re-sent. */
  of: string;
  include: string[];
  status: string;
  /** Rows its report holds, by outcome; absent when its report cannot be read. */
  byOutcome?: Record<string, number>;
  /** Its failed and rejected rows that no later follow-up accepted: what `retry <id>` sends. */
  open: number;
}

/** What the campaign's follow-ups did with its rows. */
export interface FollowUps {
  list: FollowUpFacts[];
  /** A row of the campaign's accepted by a follow-up: the follow-up's ID. */
  settled: Map<number, string>;
  /** Every row of the campaign's a direct follow-up re-sent, whatever came of it. */
  resent: Set<number>;
}

/**
 * The follow-ups of campaign `id` among `entries`, and theirs in turn, oldest first. A follow-up's
 * report keeps the original's row numbers, so a row is followed through every re-send.
 */
export async function followUpsOf(
  id: string,
  entries: readonly CampaignEntry[],
): Promise<FollowUps> {
  const found: FollowUps = { list: [], settled: new Map(), resent: new Set() };
  const unsettled = new Map<string, Set<number>>();
  const ofAny = new Set([id]);
  const chain = entries
    .filter((entry) => entry.manifest.followUp !== undefined)
    .sort((a, b) => a.manifest.createdAt.localeCompare(b.manifest.createdAt));
  for (const entry of chain) {
    const { followUp, reports } = entry.manifest;
    if (!followUp || !ofAny.has(followUp.of)) continue;
    ofAny.add(entry.manifest.id);
    const failedRows = new Set<number>();
    const report = reports.at(-1);
    const readable = report !== undefined && (await isFile(report));
    const counts = readable
      ? await summarizeReport(report, (values) => {
          const row = Number(values['row']);
          const outcome = values['outcome'];
          // Re-sent here: the campaign it follows up leaves the row to this one.
          if (followUp.of === id) found.resent.add(row);
          unsettled.get(followUp.of)?.delete(row);
          if (outcome === 'accepted') found.settled.set(row, entry.manifest.id);
          else if (outcome === 'failed' || outcome === 'rejected') failedRows.add(row);
        })
      : undefined;
    unsettled.set(entry.manifest.id, failedRows);
    found.list.push({
      id: entry.manifest.id,
      of: followUp.of,
      include: followUp.include,
      status: entry.status,
      ...(counts ? { byOutcome: { ...counts.byOutcome } } : {}),
      open: 0,
    });
  }
  for (const facts of found.list) facts.open = unsettled.get(facts.id)?.size ?? 0;
  return found;
}
