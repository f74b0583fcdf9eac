// `report ID --output FILE`: the campaign's report written out on this host, whichever host ran
// it. From a store shared by hosts, the copy its newest run kept, with the delivery reports the
// store keeps folded in; from a state directory, the report file its newest run wrote here.
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { foldIntoReport } from '../dlr/apply.js';
import { keptBook } from '../dlr/overlay.js';
import { findCampaign } from '../journal/lookup.js';
import { withState, type StoreSettings } from '../journal/open-store.js';
import { ReportCopyChanged, type CampaignEntry, type CampaignStore } from '../journal/store.js';
import { formatOf } from '../report/format.js';
import { looksLikeReportPath } from '../report/html/campaign-page.js';
import {
  describeSystemError,
  LockedError,
  SmsSendError,
  StateStoreError,
  UsageError,
} from '../shared/errors.js';
import { isFile, replaceFile } from '../shared/files.js';

/** Where the report written out came from. */
export interface ReportWritten {
  campaign: string;
  output: string;
  /** The report its run wrote, on `host` (a shared store says which). */
  from: string;
  host?: string;
  /** When the store kept it (ISO 8601): the end of the run that wrote it. */
  keptAt?: string;
  /** MessageIds whose delivery report the store keeps, folded into the rows. */
  deliveries: number;
}

export async function writeCampaignReport(request: {
  what: string;
  output: string;
  settings: () => Promise<StoreSettings>;
}): Promise<ReportWritten> {
  const { what, output } = request;
  if (looksLikeReportPath(what)) {
    throw new UsageError(`--output writes a campaign's report: give its ID, not ${what}`);
  }
  return withState(await request.settings(), async ({ store }) => {
    const entry = await findCampaign(store, what);
    const id = entry.manifest.id;
    // A run on this host may be writing there: the copy never takes a report's place.
    if (entry.manifest.reports.some((report) => resolve(report) === resolve(output))) {
      throw new UsageError(`${output} is the campaign's report itself: name another file`);
    }
    const source = await sourceOf(store, entry);
    refuseOtherFormat(source.from, output);
    const book = formatOf(output) === 'junit' ? undefined : await keptBook(store, id);
    const amend =
      book && book.size > 0
        ? async (aside: string) => {
            const fold = await foldIntoReport(aside, book);
            if (fold.kind === 'deferred') throw new Error(fold.message);
          }
        : undefined;
    try {
      await replaceFile(output, source.bytes(), { durable: true, mode: 0o644, amend });
    } catch (error) {
      if (error instanceof ReportCopyChanged) {
        throw new LockedError(`${error.message}: nothing was written; run the command again.`);
      }
      // The store's own failures say what they mean (a database that did not answer: exit 6).
      if (error instanceof SmsSendError || error instanceof StateStoreError) throw error;
      throw new UsageError(`${output} cannot be written: ${describeSystemError(error)}`);
    }
    return {
      campaign: id,
      output,
      from: source.from,
      ...(source.host === undefined ? {} : { host: source.host }),
      ...(source.keptAt === undefined ? {} : { keptAt: source.keptAt }),
      deliveries: book?.size ?? 0,
    };
  });
}

interface Source {
  from: string;
  host?: string;
  keptAt?: string;
  bytes(): AsyncIterable<Uint8Array>;
}

async function sourceOf(store: CampaignStore, entry: CampaignEntry): Promise<Source> {
  const { id, runs } = entry.manifest;
  const newest = entry.manifest.reports.at(-1);
  if (store.reportCopy) {
    const copy = await store.reportCopy(id);
    // Only the newest run's: an older run's report would leave out what the newest settled.
    if (copy?.run !== runs) throw notKept(entry, store.where, copy?.run);
    return { from: copy.path, host: copy.host, keptAt: copy.keptAt, bytes: () => copy.parts() };
  }
  if (newest === undefined || !(await isFile(newest))) {
    throw new UsageError(
      `campaign ${id}'s report ${newest ?? '(none)'} does not exist`,
      'no-report',
    );
  }
  return { from: newest, bytes: () => createReadStream(newest) };
}

/** The newest run kept no report: it has not ended, or its report could not be kept as it did. */
function notKept(entry: CampaignEntry, where: string, kept: number | undefined): UsageError {
  const { id, runs } = entry.manifest;
  const why =
    entry.status === 'running'
      ? 'it is running'
      : entry.status === 'interrupted'
        ? 'it was interrupted before it ended'
        : `its report could not be kept as it ended; it is ${entry.manifest.reports.at(-1) ?? '(none)'}${entry.host ? ` on host ${entry.host}` : ''}`;
  const older = kept === undefined ? '' : ` (the one kept is run ${kept}'s)`;
  return new UsageError(
    `campaign ${id}'s newest run (run ${runs}) has kept no report in ${where}: ${why}${older}. ` +
      'A run that finishes the campaign (--once, --resume) keeps its report as it ends.',
    'no-report',
  );
}

/** The copy is written as it is: a file named for another format would be misread. */
function refuseOtherFormat(from: string, output: string): void {
  const want = formatOf(from);
  const named = formatOf(output);
  if (want !== named) {
    throw new UsageError(
      `--output ${output}: the campaign's report is ${want ?? 'of no known format'} (${from}); ` +
        `name a file with its extension`,
    );
  }
}
