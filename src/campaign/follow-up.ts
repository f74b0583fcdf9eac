// Follow-up campaigns (`sms-send retry`): the records of a sent campaign that did not get through, re-sent as a campaign of their own.
import { createHash } from 'node:crypto';
import { basename, dirname, extname, join, resolve as resolvePath } from 'node:path';
import type { Settings } from '../config/settings.js';
import { isUndelivered } from '../report/delivery-status.js';
import { LockedError, UsageError } from '../shared/errors.js';
import type { InputFile } from '../input/open.js';
import {
  campaignIdentity,
  hashFile,
  type CampaignIdentity,
  type CampaignShape,
} from '../journal/identity.js';
import { acquireLock, type Lock } from '../journal/lock.js';
import {
  campaignPaths,
  findCampaign,
  listCampaigns,
  type CampaignEntry,
} from '../journal/state.js';
import type { BuiltRecord, CampaignReader } from '../validate/types.js';
import { generateMessageId } from '../message/message-id.js';
import { readableFormat } from '../report/format.js';
import { readReport } from '../report/read.js';
import { exists, isFile } from '../shared/files.js';
import type { CampaignRequest, FollowUp } from './types.js';

/** What a follow-up re-sends besides `failed` and `rejected`, only when asked. */
export type Include = 'unknown' | 'undelivered';
export const INCLUDES: readonly Include[] = ['unknown', 'undelivered'];

/** Why a row of the original report is re-sent. */
export type RetryReason = 'failed' | 'rejected' | Include;

export interface RetrySelection {
  /** Rows chosen, by why. */
  chosen: Record<RetryReason, number>;
  /** Rows not chosen because their kind was not asked for (`--include`). */
  left: Record<Include, number>;
  /** Chosen rows an earlier follow-up of the same campaign has re-sent already, not again. */
  alreadyRetried: number;
  /** The earlier follow-ups those were re-sent by. */
  earlierFollowUps: string[];
}

export interface RetryPlan {
  original: CampaignEntry;
  /** The original's report the rows were chosen from. */
  report: string;
  selection: RetrySelection;
  /** Undefined when there is nothing to re-send. */
  followUp?: FollowUp;
  /**
   * The same retry ran before and did not finish: this one finishes it (as --resume does), never
   * sending what it settled.
   */
  resume?: boolean;
}

export interface RetryRequest {
  /** An ID or ID prefix from `sms-send campaigns`, or the path of a campaign's report. */
  campaign: string;
  include: readonly Include[];
  stateDir: string;
  /** The follow-up goes to the simulator. */
  simulate: boolean;
  /** Resuming: an interrupted follow-up of the campaign goes on with the rows it chose. */
  resume?: boolean;
  /** How the user runs sms-send, for the commands refusals name (default `sms-send`). */
  program?: string;
}

/**
 * Why a report row is re-sent, or undefined: failed and rejected always; unknown and undelivered
 * (accepted, with a final failure as its delivery status) only when included. A row a delivery
 * report confirmed is accepted, so it is never re-sent as unknown.
 */
export function retryReason(
  row: Readonly<Record<string, unknown>>,
  include: readonly Include[],
): { reason: RetryReason; chosen: boolean } | undefined {
  const outcome = row['outcome'];
  if (outcome === 'failed' || outcome === 'rejected') return { reason: outcome, chosen: true };
  if (outcome === 'unknown') return { reason: 'unknown', chosen: include.includes('unknown') };
  const delivery = row['deliveryStatus'];
  if (outcome === 'accepted' && typeof delivery === 'string' && isUndelivered(delivery)) {
    return { reason: 'undelivered', chosen: include.includes('undelivered') };
  }
  return undefined;
}

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
    ? await resumeFollowUp(request.stateDir, original, report, target)
    : undefined;
  if (resumed) return resumed;
  const { rows, chosenIn } = await chooseRows(report, request.include);
  const include = INCLUDES.filter((what) => request.include.includes(what));
  const identity = followUpIdentity(manifest.id, manifest.contentHash, target, include, rows);
  // The same retry ran before: finished, its rows are re-sent (and left out below); unfinished,
  // this run finishes it. Never a refusal that would offer --force.
  const own = (await listCampaigns(request.stateDir)).find((e) => e.manifest.id === identity.id);
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

/** The original's shape, once it is known that its records can be re-sent faithfully. */
async function retryable(original: CampaignEntry, request: RetryRequest): Promise<CampaignShape> {
  const { manifest, status } = original;
  if (status === 'running') {
    throw new LockedError(
      `campaign ${manifest.id} is being sent by another run; retry it once that run has finished. Nothing was sent.`,
    );
  }
  if (status !== 'finished') {
    throw new UsageError(
      `campaign ${manifest.id} is ${status}: finish it with --resume first, then retry what it could not send. Nothing was sent.`,
      'unfinished',
    );
  }
  const shape = manifest.shape;
  if (!shape) {
    throw new UsageError(
      `campaign ${manifest.id} was sent by an earlier version of sms-send, whose state does not ` +
        'record how its messages were made, so they cannot be rebuilt. Nothing was sent.',
      'not-retryable',
    );
  }
  if (manifest.target === 'simulator' && !request.simulate) {
    throw new UsageError(
      `campaign ${manifest.id} was tried on the simulator: nothing of it reached a gateway. ` +
        'Retry it with --simulate, or send its input for real. Nothing was sent.',
      'not-retryable',
    );
  }
  for (const input of manifest.inputs) {
    if (input.path === '-') {
      throw new UsageError(
        `campaign ${manifest.id} read standard input, which cannot be read again to rebuild its messages. Nothing was sent.`,
        'not-retryable',
      );
    }
    if (!(await exists(input.path))) {
      throw new UsageError(
        `campaign ${manifest.id}'s input ${input.path} no longer exists: a follow-up re-sends ` +
          'records from the original inputs. Nothing was sent.',
        'input-changed',
      );
    }
    // Checked here too, not only as the follow-up is prepared: a changed input is worth saying
    // even when there is nothing to re-send.
    if ((await hashFile(input.path)).sha256 !== input.sha256)
      throw inputChanged(input.path, manifest.id);
  }
  return shape;
}

async function findOriginal(
  request: RetryRequest,
): Promise<{ original: CampaignEntry; report: string }> {
  const { stateDir, campaign, program = 'sms-send' } = request;
  if (await isFile(campaign)) {
    const path = resolvePath(campaign);
    const original = (await listCampaigns(stateDir)).find((e) => e.manifest.reports.includes(path));
    if (!original) {
      throw new UsageError(
        `no campaign in ${stateDir} wrote the report ${campaign}; name the campaign by its ID (${program} campaigns)`,
        'campaign-unknown',
      );
    }
    const newest = original.manifest.reports.at(-1)!;
    if (newest !== path) {
      throw new UsageError(
        `${campaign} is an earlier report of campaign ${original.manifest.id}; its complete report is ${newest}`,
        'campaign-unknown',
      );
    }
    return { original, report: path };
  }
  const original = await findCampaign(stateDir, campaign);
  const report = original.manifest.reports.at(-1);
  if (report === undefined || !(await isFile(report))) {
    throw new UsageError(
      `campaign ${original.manifest.id}'s report ${report ?? ''} does not exist: a follow-up chooses its records from it`,
      'no-report',
    );
  }
  return { original, report };
}

/**
 * The follow-up an interrupted run left of this campaign, planned again with the rows it chose
 * then: delivery reports folded in since may change what a new choice would be, and its identity
 * (so its journal) comes from those rows.
 */
async function resumeFollowUp(
  stateDir: string,
  original: CampaignEntry,
  report: string,
  target: CampaignShape['target'],
): Promise<RetryPlan | undefined> {
  const { manifest } = original;
  for (const entry of await listCampaigns(stateDir)) {
    const of = entry.manifest.followUp;
    if (of?.of !== manifest.id || entry.status === 'finished' || !of.rows) continue;
    if ((entry.manifest.target === 'simulator') !== (target === 'simulator')) continue;
    const rows = new Map(of.rows);
    const include = INCLUDES.filter((what) => of.include.includes(what));
    const identity = followUpIdentity(manifest.id, manifest.contentHash, target, include, rows);
    if (identity.id !== entry.manifest.id) continue;
    const { chosenIn } = await chooseRows(report, include, new Set(rows.keys()));
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

/** The rows of the report to re-send (row → MessageId), and the counts by why. */
async function chooseRows(
  report: string,
  include: readonly Include[],
  /** Count only these rows, each by why it was chosen (a follow-up resumed with its rows). */
  only?: ReadonlySet<number>,
): Promise<{
  rows: Map<number, string>;
  chosenIn: Omit<RetrySelection, 'alreadyRetried' | 'earlierFollowUps'>;
}> {
  readableFormat(report);
  const rows = new Map<number, string>();
  const chosen: Record<RetryReason, number> = {
    failed: 0,
    rejected: 0,
    unknown: 0,
    undelivered: 0,
  };
  const left: Record<Include, number> = { unknown: 0, undelivered: 0 };
  for await (const entry of readReport(report)) {
    if (entry.kind === 'header') continue;
    if (entry.kind === 'unreadable') {
      throw new UsageError(
        `${report}:${entry.line}: not a readable report row; a follow-up cannot tell what it holds. Nothing was sent.`,
        'not-a-report',
      );
    }
    if (only) {
      const why = retryReason(entry.values, INCLUDES);
      if (only.has(Number(entry.values['row'])) && why) chosen[why.reason]++;
      continue;
    }
    const why = retryReason(entry.values, include);
    if (!why) continue;
    if (!why.chosen) {
      left[why.reason as Include]++;
      continue;
    }
    const row = Number(entry.values['row']);
    const messageId = entry.values['messageId'];
    if (!Number.isSafeInteger(row) || row < 1 || typeof messageId !== 'string' || rows.has(row)) {
      throw new UsageError(
        `${report}:${entry.line}: no row number and MessageId of its own; a follow-up cannot match it to its record. Nothing was sent.`,
        'not-a-report',
      );
    }
    rows.set(row, messageId);
    chosen[why.reason]++;
  }
  return { rows, chosenIn: { chosen, left } };
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

/** The other follow-ups of a campaign to the same kind of target, and the rows they re-sent. */
async function earlierFollowUps(
  request: RetryRequest,
  of: string,
  self: string | undefined,
  target: CampaignShape['target'],
): Promise<{ ids: string[]; rows: Set<number> }> {
  const { stateDir, program } = request;
  const resent = await rowsResent(stateDir, of, target, { except: self, program });
  return { ids: [...new Set(resent.values())], rows: new Set(resent.keys()) };
}

/**
 * The rows of campaign `of` that its follow-ups (to the same kind of target) have re-sent, each
 * with the follow-up's ID: no record is sent by two of them, nor by the original again. A
 * follow-up that is not finished is refused: its rows are not all known yet.
 */
export async function rowsResent(
  stateDir: string,
  of: string,
  target: CampaignShape['target'],
  options: { except?: string; program?: string } = {},
): Promise<Map<number, string>> {
  const { except, program = 'sms-send' } = options;
  const rows = new Map<number, string>();
  for (const entry of await listCampaigns(stateDir)) {
    const { manifest } = entry;
    if (manifest.followUp?.of !== of || manifest.id === except) continue;
    if ((manifest.target === 'simulator') !== (target === 'simulator')) continue;
    if (entry.status !== 'finished') {
      throw new UsageError(
        `campaign ${of} has a follow-up, ${manifest.id}, that is ${entry.status}: finish it first ` +
          `(${program} retry ${of} --resume, with the same --include), so no record is re-sent twice. Nothing was sent.`,
        'unfinished',
      );
    }
    const report = manifest.reports.at(-1);
    if (report === undefined) continue;
    for await (const row of readReport(report)) {
      if (row.kind === 'row') rows.set(Number(row.values['row']), manifest.id);
    }
  }
  return rows;
}

/**
 * Holds the original campaign while a follow-up of it runs: another follow-up, or a --resume of
 * the original, waits for nobody (exit 4). Rows another follow-up re-sent since this one chose
 * its rows are refused: choosing again leaves them out.
 */
export async function holdOriginal(
  stateDir: string,
  followUp: FollowUp,
  program = 'sms-send',
): Promise<Lock> {
  const of = followUp.of.of;
  const lock = await acquireLock(
    campaignPaths(stateDir, of).lock,
    `re-sending records of campaign ${of}`,
  );
  try {
    const target = followUp.shape.target;
    const resent = await rowsResent(stateDir, of, target, {
      except: followUp.identity.id,
      program,
    });
    for (const row of followUp.rows.keys()) {
      const by = resent.get(row);
      if (by !== undefined) {
        throw new UsageError(
          `follow-up ${by} re-sent records of campaign ${of} while this one was being prepared; ` +
            `run ${program} retry ${of} again to choose what is left. Nothing was sent.`,
          'unfinished',
        );
      }
    }
    return lock;
  } catch (error) {
    await lock.release();
    throw error;
  }
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
 * The campaign request of a follow-up: the original inputs made into messages as the original
 * made them (its recorded shape), whatever message settings the config or flags give now; the
 * sending settings are this run's.
 */
export function followUpCampaign(
  followUp: FollowUp,
  originalReport: string,
  options: {
    settings: Settings;
    simulate: boolean;
    report?: string;
    force: boolean;
    resume: boolean;
    dryRun: boolean;
    /** Outside the send window, end at once (exit 5) rather than wait. */
    noWait?: boolean;
    now: Date;
    onValidated?: (records: number) => void;
  },
): CampaignRequest {
  const { shape } = followUp;
  const files: InputFile[] = followUp.inputs.map((input) => ({
    path: input.path,
    label: input.path,
  }));
  return {
    files,
    settings: {
      ...options.settings,
      defaults: shape.defaults as Settings['defaults'],
      country: shape.country,
      campaign: undefined,
      // A number that opted out since the original was sent is not sent to now: the original's
      // lists, as they read today, and any this run names.
      suppress: withLists(options.settings.suppress, followUp.suppress),
    },
    simulate: options.simulate,
    mapping: shape.mapping,
    template: shape.template,
    inputFormat: shape.inputFormat,
    delimiter: shape.delimiter,
    report: options.report ?? followUpReportPath(originalReport, followUp.identity.id),
    force: options.force,
    resume: options.resume,
    retryUnknown: false,
    dryRun: options.dryRun,
    noWait: options.noWait,
    now: options.now,
    onValidated: options.onValidated,
    followUp,
  };
}

/** Only the chosen rows, each with a MessageId of the follow-up's own (from its identity). */
export function selectRows(
  reader: CampaignReader,
  rows: ReadonlyMap<number, string>,
  stem: string,
): CampaignReader {
  return {
    fileProblems: reader.fileProblems,
    fileWarnings: reader.fileWarnings,
    async *records() {
      for await (const batch of reader.records()) {
        // A follow-up is read on this thread (no worker parts), so every batch is built records.
        if (!Array.isArray(batch)) throw new Error('a follow-up is validated on one thread');
        const chosen: BuiltRecord[] = [];
        for (const item of batch) {
          const { record, built } = item;
          if (!rows.has(record.row)) continue;
          // A record suppressed since stays skipped: `skipped` goes along with it.
          if (!built.ok) chosen.push(item);
          else {
            const MessageId = generateMessageId(stem, record.row);
            chosen.push({ ...item, built: { ...built, message: { ...built.message, MessageId } } });
          }
        }
        if (chosen.length > 0) yield chosen;
      }
    },
  };
}

/** The original inputs must be the bytes the campaign was sent from, or its rows mean other records. */
export function checkInputsUnchanged(
  files: readonly InputFile[],
  hashes: readonly { sha256: string; bytes: number }[],
  followUp: FollowUp,
): void {
  followUp.inputs.forEach((input, i) => {
    if (hashes[i]?.sha256 === input.sha256 && files[i]?.path === input.path) return;
    throw inputChanged(input.path, followUp.of.of);
  });
}

function inputChanged(path: string, campaign: string): UsageError {
  return new UsageError(
    `${path} has changed since campaign ${campaign} was sent from it, so its rows no longer ` +
      'match the report; nothing was sent. Send the changed file as a campaign of its own.',
    'input-changed',
  );
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
