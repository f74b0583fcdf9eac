// Records a run's sending over time from its events (answers per minute, latency, pauses, when
// each row was answered) for the HTML page; written to the campaign's state folder when it ends.
import type { Settings } from '../config/settings.js';
import type { SendEmitter } from '../send/events.js';
import {
  appendTimelineRun,
  type MinuteTuple,
  type PauseKind,
  type PauseTuple,
  type SentTuple,
  type TimelineRun,
} from '../report/html/timeline.js';
import { describeWindow } from '../shared/window.js';

const MINUTE_MS = 60_000;
/** About a batch each for 10 million records at the default batch size: a few MB at most. */
const MAX_SENT_ENTRIES = 100_000;

export interface TimelineRecorder {
  /**
   * Adds the run to the campaign's timeline, if it sent anything: a run that sent nothing leaves
   * no state (docs/architecture.md#journal-and-resume). A failure is the caller's to report.
   */
  finish(campaignDir: string, target: string): Promise<void>;
}

/** Listens to a run's events; `command` is the command line already masked. */
export function recordTimeline(
  events: SendEmitter,
  settings: Pick<Settings, 'batchSize' | 'concurrency' | 'rate' | 'sendWindow'>,
  command: string,
  now: () => number = Date.now,
): TimelineRecorder {
  const startedAt = now();
  const minutes = new Map<number, MinuteTuple>();
  const pauses: PauseTuple[] = [];
  const sent: SentTuple[] = [];
  let outageFrom: number | undefined;
  const pause = (kind: PauseKind, from: number, to: number) => {
    if (to > from) pauses.push([kind, from, to]);
  };
  events.on('batch', (batch) => {
    const at = now();
    const minute = Math.floor(at / MINUTE_MS) * MINUTE_MS;
    let entry = minutes.get(minute);
    if (!entry) minutes.set(minute, (entry = [minute, 0, 0, 0, 0]));
    if (batch.verdict === 'results') entry[1] += batch.size;
    entry[2]++;
    entry[3] += batch.latencyMs;
    entry[4] = Math.max(entry[4], batch.latencyMs);
  });
  events.on('record', (row, earlier) => {
    if (earlier || row.attempts === 0) return;
    const at = now();
    const last = sent.at(-1);
    if (last && last[2] === at && last[1] + 1 === row.row) last[1] = row.row;
    // Rows far apart (a resume re-sending scattered failures) take an entry each: past the cap
    // the rest go without a time, so the file stays small whatever the run.
    else if (sent.length < MAX_SENT_ENTRIES) sent.push([row.row, row.row, at]);
  });
  events.on('retry', (notice) => pause('retry wait', now(), now() + notice.delayMs));
  events.on('waiting', (wait) => pause('window', wait.now, wait.opensAt));
  events.on('outage', () => (outageFrom = now()));
  events.on('recovered', () => {
    if (outageFrom !== undefined) pause('outage', outageFrom, now());
    outageFrom = undefined;
  });
  const window = settings.sendWindow;
  return {
    async finish(campaignDir, target) {
      if (minutes.size === 0) return;
      const finishedAt = now();
      if (outageFrom !== undefined) pause('outage', outageFrom, finishedAt);
      const run: TimelineRun = {
        startedAt,
        finishedAt,
        command,
        target,
        settings: {
          batchSize: settings.batchSize,
          concurrency: settings.concurrency,
          ...(settings.rate === undefined ? {} : { rate: settings.rate }),
          ...(window ? { window: describeWindow(window) } : {}),
        },
        minutes: [...minutes.values()].sort((a, b) => a[0] - b[0]),
        pauses,
        sent: sent.sort((a, b) => a[0] - b[0]),
      };
      await appendTimelineRun(campaignDir, run);
    },
  };
}
