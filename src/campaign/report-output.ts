// `report ID --output FILE`: the campaign's report written out on this host, whichever host ran
// it. From a store shared by hosts, the copy its newest run kept, with the delivery reports the
// store keeps folded in; from a state directory, the report file its newest run wrote here.
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { foldIntoReport } from '../dlr/apply.js';
import { keptBook } from '../dlr/overlay.js';
import { findCampaign } from '../journal/lookup.js';
import { withState, type StoreSettings } from '../journal/open-store.js';
import type { CampaignStore } from '../journal/store.js';
import { formatOf } from '../report/format.js';
import { looksLikeReportPath } from '../report/html/campaign-page.js';
import { describeSystemError, UsageError } from '../shared/errors.js';
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
    const source = await sourceOf(store, id, entry.manifest.reports.at(-1));
    refuseOtherFormat(source.from, output);
    if (resolve(output) === resolve(source.from) && source.host === undefined) {
      throw new UsageError(`${output} is the campaign's report itself: name another file`);
    }
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

async function sourceOf(
  store: CampaignStore,
  id: string,
  newest: string | undefined,
): Promise<Source> {
  if (store.reportCopy) {
    const copy = await store.reportCopy(id);
    if (!copy) {
      throw new UsageError(
        `campaign ${id} has no report kept in ${store.where}: no run of it has ended yet`,
        'no-report',
      );
    }
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
