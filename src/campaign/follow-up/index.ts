// Follow-up campaigns (`sms-send retry`): the records of a sent campaign that did not get through, re-sent as a campaign of their own.
import { createHash } from 'node:crypto';
import { basename, dirname, extname, join, resolve as resolvePath } from 'node:path';
import type { Settings } from '../../config/settings.js';
import type { InputFile } from '../../input/open.js';
import {
  campaignIdentity,
  type CampaignIdentity,
  type CampaignShape,
} from '../../journal/identity.js';
import type { CampaignEntry } from '../../journal/store.js';
import type { CampaignStore } from '../../journal/store.js';
import type { FollowUp } from '../types.js';
import { campaignRun, type CampaignRun, type RunParts } from '../run.js';
import { findOriginal, retryable } from './original.js';
import { chooseRows, earlierFollowUps } from './rows.js';
import { heldBefore } from './held-before.js';
import { keptDeliveries } from '../../dlr/overlay.js';
import {
  INCLUDES,
  type Include,
  type RetryPlan,
  type RetryRequest,
  type RetrySelection,
} from './types.js';

export { checkInputsUnchanged, holdOriginal } from './original.js';
export { retryReason, rowsResent, selectRows } from './rows.js';
export {
  INCLUDES,
  type Include,
  type RetryPlan,
  type RetryReason,
  type RetryRequest,
} from './types.js';

/**
 * Finds the original campaign, chooses its rows from its report, and derives the follow-up's
 * identity. Refuses (exit 2) what cannot be re-sent faithfully: an unfinished campaign, standard
 * input, missing inputs, a campaign whose state does not say how its messages were made, a
 * simulator trial sent for real; exit 4 while the campaign is being sent.
 */
export async function planFollowUp(request: RetryRequest): Promise<RetryPlan> {
  const { original, report } = await findOriginal(request);
  const shape = await retryable(original, request);
  const { manifest } = original;

  const target: CampaignShape['target'] = request.simulate ? 'simulator' : 'gateway';
  const resumed = request.resume
    ? await resumeFollowUp(request.store, original, report, target)
    : undefined;
  if (resumed) return resumed;
  const overlay = await keptDeliveries(request.store, manifest.id);
  const heldRows = await heldBefore(request.store, manifest);
  const { rows, chosenIn } = await chooseRows(report, request.include, {
    overlay,
    heldBefore: heldRows,
  });
  const include = INCLUDES.filter((what) => request.include.includes(what));
  const identity = followUpIdentity(manifest.id, manifest.contentHash, target, include, rows);
  // The same retry ran before: finished, its rows are re-sent (and left out below); unfinished,
  // this run finishes it. Never a refusal that would offer --force.
  const own = (await request.store.campaigns()).find((e) => e.manifest.id === identity.id);
  const unfinished = own !== undefined && own.status !== 'finished';
  // Rows an earlier follow-up of this campaign (this same retry, or another selection: delivery
  // reports arrived since, or other --include) has re-sent are not re-sent again: retry that
  // follow-up instead.
  const earlier = await earlierFollowUps(
    request,
    manifest.id,
    unfinished ? identity.id : undefined,
    target,
  );
  let alreadyRetried = 0;
  for (const row of earlier.rows) {
    if (rows.delete(row)) alreadyRetried++;
  }
  const selection: RetrySelection = {
    ...chosenIn,
    alreadyRetried,
    earlierFollowUps: earlier.ids,
  };
  if (rows.size === 0) return { original, report, selection };
  return {
    original,
    report,
    selection,
    resume: unfinished,
    followUp: {
      identity,
      of: { of: manifest.id, include },
      shape,
      inputs: manifest.inputs,
      suppress: manifest.suppress ?? [],
      rows,
    },
  };
}

/**
 * The follow-up an interrupted run left of this campaign, planned again with the rows it chose
 * then: delivery reports folded in since may change what a new choice would be, and its identity
 * (so its journal) comes from those rows.
 */
async function resumeFollowUp(
  store: CampaignStore,
  original: CampaignEntry,
  report: string,
  target: CampaignShape['target'],
): Promise<RetryPlan | undefined> {
  const { manifest } = original;
  for (const entry of await store.campaigns()) {
    const of = entry.manifest.followUp;
    if (of?.of !== manifest.id || entry.status === 'finished' || !of.rows) continue;
    if ((entry.manifest.target === 'simulator') !== (target === 'simulator')) continue;
    const rows = new Map(of.rows);
    const include = INCLUDES.filter((what) => of.include.includes(what));
    const identity = followUpIdentity(manifest.id, manifest.contentHash, target, include, rows);
    if (identity.id !== entry.manifest.id) continue;
    const { chosenIn } = await chooseRows(report, include, {
      only: new Set(rows.keys()),
      heldBefore: await heldBefore(store, manifest),
    });
    return {
      original,
      report,
      selection: { ...chosenIn, alreadyRetried: 0, earlierFollowUps: [] },
      followUp: {
        identity,
        of: { of: manifest.id, include },
        shape: manifest.shape!,
        inputs: manifest.inputs,
        suppress: manifest.suppress ?? [],
        rows,
      },
    };
  }
  return undefined;
}

/**
 * From the original campaign, the target kind, what was included and the rows chosen: the same
 * retry of the same report is the same campaign (refused once sent, resumable when interrupted).
 */
function followUpIdentity(
  id: string,
  contentHash: string,
  target: string,
  include: readonly Include[],
  rows: ReadonlyMap<number, string>,
): CampaignIdentity {
  const hash = createHash('sha256');
  hash.update(`sms-send follow-up v1\0${id}\0${contentHash}\0${target}\0${include.join(',')}\0`);
  for (const row of [...rows.keys()].sort((a, b) => a - b)) hash.update(`${row},`);
  return campaignIdentity(hash.digest('hex'));
}

/**
 * The follow-up's default report: beside the original's, in its format, named for the follow-up:
 * `campaign.report.csv` → `campaign.retry-<first 8 of its ID>.report.csv`.
 */
export function followUpReportPath(originalReport: string, id: string): string {
  const ext = extname(originalReport);
  const base = basename(originalReport, ext).replace(/\.report$/, '');
  return join(dirname(originalReport), `${base}.retry-${id.slice(0, 8)}.report${ext}`);
}

/**
 * The run of a follow-up: the original inputs made into messages as the original made them (its
 * recorded shape), whatever message settings the config or flags give now; the sending settings
 * and choices are this run's. Built once, from the retry's plan.
 */
export function followUpRun(
  followUp: FollowUp,
  originalReport: string,
  parts: Omit<RunParts, 'inputs' | 'followUp' | 'template'>,
): CampaignRun {
  const { shape } = followUp;
  const inputs: InputFile[] = followUp.inputs.map((input) => ({
    path: input.path,
    label: input.path,
  }));
  const { settings, choices } = parts;
  return campaignRun({
    ...parts,
    inputs,
    settings: {
      ...settings,
      defaults: shape.defaults as Settings['defaults'],
      country: shape.country,
      campaign: undefined,
      // A number that opted out since the original was sent is not sent to now: the original's
      // lists, as they read today, and any this run names.
      suppress: withLists(settings.suppress, followUp.suppress),
    },
    choices: {
      ...choices,
      map: shape.mapping,
      inputFormat: shape.inputFormat,
      delimiter: shape.delimiter,
      report: choices.report ?? followUpReportPath(originalReport, followUp.identity.id),
      retryUnknown: false,
    },
    template: shape.template,
    followUp,
  });
}

/** The lists of this run and the original's, each path once. */
function withLists(lists: Settings['suppress'], original: readonly string[]): Settings['suppress'] {
  const all = [...lists];
  const paths = new Set(lists.map((list) => resolvePath(list.path)));
  for (const path of original) {
    if (!paths.has(path)) all.push({ path, label: path });
  }
  return all;
}
