// How the sending went over time, kept in the campaign's state folder for the HTML page: the report
// rows hold outcomes, not times (docs/report.md#the-html-page says what is recorded and why).
import { join } from 'node:path';
import { readIfExists, replaceFile } from '../../shared/files.js';

/** What shaped one run's sending, as the page shows it. */
export interface RunSettings {
  batchSize: number;
  concurrency: number;
  /** Messages per second; absent when unlimited. */
  rate?: number;
  /** `09:00-21:00 mon-fri Europe/Oslo`; absent when there is no send window. */
  window?: string;
}

/** One minute of sending: [minute start (ms), messages answered, batches, latency sum (ms), latency max (ms)]. */
export type MinuteTuple = [
  at: number,
  messages: number,
  batches: number,
  latencySum: number,
  latencyMax: number,
];

/** Why sending paused: a send window, a batch waiting to be sent again (429, 503 with Retry-After, a refused connection), an outage. */
export type PauseKind = 'window' | 'retry wait' | 'outage';

/** [kind, from (ms), to (ms)] */
export type PauseTuple = [kind: PauseKind, from: number, to: number];

/**
 * Rows answered together: [first row, last row, when (ms)]. Each batch's rows arrive together, so
 * a million-record campaign needs about one entry per batch, not one per row.
 */
export type SentTuple = [from: number, to: number, at: number];

export interface TimelineRun {
  startedAt: number;
  finishedAt: number;
  /** The command as it was run, with credentials masked. */
  command: string;
  /** "simulator" or the endpoint. */
  target: string;
  settings: RunSettings;
  minutes: MinuteTuple[];
  pauses: PauseTuple[];
  sent: SentTuple[];
}

export interface Timeline {
  v: 1;
  runs: TimelineRun[];
}

export const TIMELINE_FILE = 'timeline.json';

/** The timeline of a campaign's state folder; undefined when none was kept or it cannot be read. */
export async function readTimeline(campaignDir: string): Promise<Timeline | undefined> {
  const text = await readIfExists(join(campaignDir, TIMELINE_FILE));
  if (text === undefined) return undefined;
  try {
    const timeline = JSON.parse(text) as Timeline;
    return timeline.v === 1 && Array.isArray(timeline.runs) ? timeline : undefined;
  } catch {
    // A torn file only costs the page its time charts: the report is the record.
    return undefined;
  }
}

/** Adds a run to the folder's timeline: written aside and renamed, so a crash leaves the old one. */
export async function appendTimelineRun(campaignDir: string, run: TimelineRun): Promise<void> {
  const path = join(campaignDir, TIMELINE_FILE);
  const timeline = (await readTimeline(campaignDir)) ?? { v: 1, runs: [] };
  timeline.runs.push(run);
  // Only the page's time charts depend on it: not worth a sync of its own.
  await replaceFile(path, `${JSON.stringify(timeline)}\n`, { durable: false });
}
