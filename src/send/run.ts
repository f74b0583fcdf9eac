// The send pass of a campaign: report, journal and resume around send(). Knows files, not terminals.
import { rm } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { doneLine, journalPath, JournalWriter, readJournal, sendLine } from '../journal/journal.js';
import { ReportSink } from '../report/sink.js';
import { openReport } from '../report/writer.js';
import type { SendEmitter } from './events.js';
import { RateLimiter } from './rate.js';
import { applyJournal, type ResumeCounts } from './resume.js';
import { send, type Entry, type Poster, type SendOutcome } from './send.js';
import { exists } from '../exists.js';

export interface RunOptions {
  entries: AsyncIterable<Entry>;
  reportPath: string;
  campaignKey: string;
  /** Start over: the existing report and journal are replaced. */
  force: boolean;
  /** Continue the campaign recorded in the journal. */
  resume: boolean;
  retryUnknown: boolean;
  poster: Poster;
  batchSize: number;
  concurrency: number;
  retries: number;
  rate?: number;
  stopSignal?: AbortSignal;
  abortSignal?: AbortSignal;
}

export interface RunResult extends SendOutcome {
  resumed?: ResumeCounts;
}

export async function runCampaign(options: RunOptions, events: SendEmitter): Promise<RunResult> {
  const journalFile = journalPath(options.reportPath);
  const previous = options.resume ? await readJournal(journalFile) : undefined;
  if (options.resume) {
    // A run killed before its first batch left no journal: resuming it is simply starting it.
    if (!previous && (await exists(options.reportPath))) {
      throw new UsageError(
        `nothing to resume: there is no journal ${journalFile} beside the existing report`,
        'no-journal',
      );
    }
    if (previous && previous.campaign !== options.campaignKey) {
      throw new UsageError(
        `the input has changed since ${journalFile} was written, so its records cannot be matched; ` +
          'nothing was sent. Resume with the same input files, or start over with --force.',
        'input-changed',
      );
    }
  } else if (options.force) {
    await rm(journalFile, { force: true });
  } else if ((await readJournal(journalFile)) !== undefined) {
    throw new UsageError(
      `${journalFile} exists: an earlier run of this campaign was interrupted. ` +
        'Use --resume to finish it, or --force to send it all again.',
      'journal-exists',
    );
  }

  // The journal holds every result of earlier runs, so the report can be written afresh.
  const writer = await openReport(options.reportPath, { force: options.force || options.resume });
  const sink = new ReportSink(writer);
  const onRecord = sink.add.bind(sink);
  events.on('record', onRecord);
  const flush = () => void sink.flush();
  events.on('batch', flush);

  const journal = await JournalWriter.open(journalFile);
  const run = (previous?.runs ?? 0) + 1;
  await journal.append({
    t: 'start',
    v: 1,
    campaign: options.campaignKey,
    run,
    at: new Date().toISOString(),
  });

  const resumed: ResumeCounts | undefined = previous ? { fromJournal: 0, inFlight: 0 } : undefined;
  const entries =
    previous && resumed
      ? applyJournal(options.entries, previous, options.retryUnknown, resumed)
      : options.entries;
  try {
    const outcome = await send(
      entries,
      {
        poster: options.poster,
        batchSize: options.batchSize,
        concurrency: options.concurrency,
        retries: options.retries,
        retryUnknown: options.retryUnknown,
        limiter: new RateLimiter(options.rate),
        stopSignal: options.stopSignal,
        abortSignal: options.abortSignal,
        hooks: {
          beforeSend: (batch, rows) => journal.append(sendLine(`${run}:${batch}`, rows)),
          afterResult: (batch, rows) => journal.append(doneLine(`${run}:${batch}`, rows)),
        },
      },
      events,
    );
    return { ...outcome, resumed };
  } finally {
    events.off('record', onRecord);
    events.off('batch', flush);
    await journal.close();
    await sink.close();
  }
}
