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
  /**
   * Its failed and rejected rows that no later follow-up re-sent and no campaign before it left
   * unknown: what `retry <id>` sends.
   */
  open: number;
  /** Its rows the gateway may hold from then or before: what `--include unknown` adds. */
  openUnknown: number;
}

/** The outcome a row had in the follow-up that re-sent it last: what became of it. */
export interface LatestOutcome {
  /** The follow-up. */
  id: string;
  outcome: string;
  statusCode: string;
  description: string;
  deliveryStatus: string;
}

/** A follow-up's rows still open, by whether the gateway may hold their messages already. */
interface OpenRows {
  failed: Set<number>;
  unknown: Set<number>;
}

/** What the campaign's follow-ups did with its rows. */
export interface FollowUps {
  list: FollowUpFacts[];
  /** A row of the campaign's accepted by a follow-up: the follow-up's ID. */
  settled: Map<number, string>;
  /** Every row of the campaign's a direct follow-up re-sent, whatever came of it. */
  resent: Set<number>;
  /** Each re-sent row's outcome in the follow-up that re-sent it last. */
  latest: Map<number, LatestOutcome>;
  /** Each follow-up's open rows, by its ID. */
  openRows: Map<string, OpenRows>;
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
  const found: FollowUps = {
    list: [],
    settled: new Map(),
    resent: new Set(),
    latest: new Map(),
    openRows: new Map(),
    uncertain: false,
  };
  // Rows a follow-up left unknown: any later re-send of theirs may make a message arrive twice.
  const held = new Set<number>();
  const ofAny = new Set([id]);
  const simulated = target === 'simulator';
  const chain = entries
    .filter(({ manifest }) => manifest.followUp && (manifest.target === 'simulator') === simulated)
    .sort((a, b) => a.manifest.createdAt.localeCompare(b.manifest.createdAt));
  for (const entry of chain) {
    const { followUp } = entry.manifest;
    if (!followUp || !ofAny.has(followUp.of)) continue;
    const own = entry.manifest.id;
    ofAny.add(own);
    const open: OpenRows = { failed: new Set(), unknown: new Set() };
    const counts = await readFollowUp(entry, (row, values) => {
      const outcome = values['outcome'];
      // Re-sent here: the campaign it follows up leaves the row to this one.
      if (followUp.of === id) found.resent.add(row);
      found.openRows.get(followUp.of)?.failed.delete(row);
      found.openRows.get(followUp.of)?.unknown.delete(row);
      found.latest.set(row, latestOf(own, values));
      if (outcome === 'accepted') found.settled.set(row, own);
      else if (outcome === 'unknown') open.unknown.add(row);
      else if (outcome === 'failed' || outcome === 'rejected') {
        (held.has(row) ? open.unknown : open.failed).add(row);
      }
    });
    for (const row of open.unknown) held.add(row);
    if (!counts || entry.status !== 'finished') found.uncertain = true;
    found.openRows.set(own, open);
    found.list.push({
      id: own,
      of: followUp.of,
      include: followUp.include,
      status: entry.status,
      ...(counts ? { byOutcome: counts } : {}),
      open: 0,
      openUnknown: 0,
    });
  }
  return found;
}

/**
 * Each follow-up with its open rows counted, once the campaign's own report told which of its rows
 * the gateway may hold (`heldHere`): a follow-up's failed re-send of one of those is an unknown one.
 */
export function withOpenCounts(found: FollowUps, heldHere: ReadonlySet<number>): FollowUpFacts[] {
  return found.list.map((facts) => {
    const open = found.openRows.get(facts.id);
    if (!open) return facts;
    let moved = 0;
    for (const row of open.failed) if (heldHere.has(row)) moved++;
    return {
      ...facts,
      open: open.failed.size - moved,
      openUnknown: open.unknown.size + moved,
    };
  });
}

function latestOf(id: string, values: Readonly<Record<string, unknown>>): LatestOutcome {
  const text = (key: string) => {
    const value = values[key];
    return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
  };
  return {
    id,
    outcome: text('outcome'),
    statusCode: text('statusCode'),
    description: text('statusDescription') || text('error'),
    deliveryStatus: text('deliveryStatus'),
  };
}

/** A follow-up's report read row by row: its counts, or undefined when it cannot be read. */
async function readFollowUp(
  entry: CampaignEntry,
  visit: (row: number, values: Readonly<Record<string, unknown>>) => void,
): Promise<Record<string, number> | undefined> {
  const report = entry.manifest.reports.at(-1);
  if (report === undefined) return undefined;
  try {
    const counts = await summarizeReport(report, (values) => visit(Number(values['row']), values));
    return { ...counts.byOutcome };
  } catch {
    // Gone, unreadable or not a report that reads back (JUnit XML): said on the page.
    return undefined;
  }
}
