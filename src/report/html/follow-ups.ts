// A campaign's follow-ups as its page tells them, read from their own reports: each one named with
// what it settled, and which of the campaign's rows were re-sent and accepted there. Only
// follow-ups to the same kind of target count, as `retry` counts them: a simulator's acceptance
// settles nothing for a campaign sent to a gateway.
import type { CampaignEntry } from '../../journal/store.js';
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
  /** Its failed and rejected rows that no later follow-up re-sent: what `retry <id>` sends. */
  open: number;
}

/** What the campaign's follow-ups did with its rows. */
export interface FollowUps {
  list: FollowUpFacts[];
  /** A row of the campaign's accepted by a follow-up: the follow-up's ID. */
  settled: Map<number, string>;
  /** Every row of the campaign's a direct follow-up re-sent, whatever came of it. */
  resent: Set<number>;
  /**
   * A follow-up's report could not be read, or one is not finished: which rows are open is not
   * known, so the page offers no retry of this chain (a retry would refuse or say so itself).
   */
  uncertain: boolean;
}

/**
 * The follow-ups of campaign `id` (sent to `target`) among `entries`, and theirs in turn, oldest
 * first. A follow-up's report keeps the original's row numbers, so a row is followed through
 * every re-send.
 */
export async function followUpsOf(
  id: string,
  target: string,
  entries: readonly CampaignEntry[],
): Promise<FollowUps> {
  const found: FollowUps = { list: [], settled: new Map(), resent: new Set(), uncertain: false };
  const unsettled = new Map<string, Set<number>>();
  const ofAny = new Set([id]);
  const simulated = target === 'simulator';
  const chain = entries
    .filter(({ manifest }) => manifest.followUp && (manifest.target === 'simulator') === simulated)
    .sort((a, b) => a.manifest.createdAt.localeCompare(b.manifest.createdAt));
  for (const entry of chain) {
    const { followUp } = entry.manifest;
    if (!followUp || !ofAny.has(followUp.of)) continue;
    ofAny.add(entry.manifest.id);
    const failedRows = new Set<number>();
    const counts = await readFollowUp(entry, (row, outcome) => {
      // Re-sent here: the campaign it follows up leaves the row to this one.
      if (followUp.of === id) found.resent.add(row);
      unsettled.get(followUp.of)?.delete(row);
      if (outcome === 'accepted') found.settled.set(row, entry.manifest.id);
      else if (outcome === 'failed' || outcome === 'rejected') failedRows.add(row);
    });
    if (!counts || entry.status !== 'finished') found.uncertain = true;
    unsettled.set(entry.manifest.id, failedRows);
    found.list.push({
      id: entry.manifest.id,
      of: followUp.of,
      include: followUp.include,
      status: entry.status,
      ...(counts ? { byOutcome: counts } : {}),
      open: 0,
    });
  }
  for (const facts of found.list) facts.open = unsettled.get(facts.id)?.size ?? 0;
  return found;
}

/** A follow-up's report read row by row: its counts, or undefined when it cannot be read. */
async function readFollowUp(
  entry: CampaignEntry,
  visit: (row: number, outcome: unknown) => void,
): Promise<Record<string, number> | undefined> {
  const report = entry.manifest.reports.at(-1);
  if (report === undefined) return undefined;
  try {
    const counts = await summarizeReport(report, (values) =>
      visit(Number(values['row']), values['outcome']),
    );
    return { ...counts.byOutcome };
  } catch {
    // Gone, unreadable or not a report that reads back (JUnit XML): said on the page.
    return undefined;
  }
}
