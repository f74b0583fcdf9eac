// Step three of a campaign: the validation pass (or the complete spool an earlier run kept) plans
// it and writes every record ready to send to the spool; a resume counts only what is left, and
// takes back the answers an earlier run kept only in its report. A finished campaign whose
// resume would send nothing is answered from its manifest instead.
import { relativesRefusal } from './relatives.js';
import type { SentBy } from './skip-sent.js';
import { createHash } from 'node:crypto';
import type { CampaignShape } from '../../journal/identity.js';
import type { JournalState } from '../../journal/journal.js';
import { Tally } from '../../report/summary.js';
import { unsentStateError, type UsageError } from '../../shared/errors.js';
import { exists } from '../../shared/files.js';
import { planCampaign, type Plan } from '../../validate/plan.js';
import { readSpool } from '../../validate/spool.js';
import { rowsResent } from '../follow-up/index.js';
import { refusalError } from '../refusal.js';
import type { CampaignRun } from '../run.js';
import type { PlannedCampaign } from '../types.js';
import { answersFromManifest, type ManifestAnswer } from './answered.js';
import type { CampaignHold } from './claim.js';
import type { Identified } from './identify.js';
import { takeAnswersFromReport } from '../kept-answers.js';
import { keptSpool, keyOf, stampSpool } from './kept-spool.js';
import { settledRows } from './resume.js';
import { normalizes, refusalOf, validationPass } from './validation-pass.js';

/** A campaign planned, with what the steps after the caller's confirmation take from it. */
export interface Validated extends PlannedCampaign {
  shape: CampaignShape;
  hashes: Identified['hashes'];
  /** Rows of this campaign its follow-ups re-sent (a resume of the original leaves them). */
  resent?: ReadonlyMap<number, string>;
  /** A finished campaign's resume that would send nothing: its manifest's answer. */
  answer?: ManifestAnswer;
  /**
   * Why a real run is refused for a relative (the same input path or report, unfinished or in the
   * way): what it would send again, and the flag that sends nothing twice.
   */
  relatedRefusal?: UsageError;
}

export async function validate(
  run: CampaignRun,
  identified: Identified,
  hold: CampaignHold,
): Promise<Validated> {
  try {
    const answer = await answersFromManifest(run, hold, identified.reportPath);
    if (answer) return answered(run, identified, hold, answer);
    if (hold.claim?.finished) await hold.claim.loadJournal();
    const journal = hold.journal;
    const resent = journal ? await resentRows(run, identified) : undefined;
    const settled = journal
      ? settledRows(journal, run.choices.retryUnknown === true, resent)
      : () => false;
    const key = await spoolKeyOf(run, identified, hold.sentBy);
    const { plan, toSend: counted } =
      (await reuseSpool(run, hold, key, settled)) ??
      (await validateAndKeep(run, hold, key, identified, settled));
    // Answers an earlier run could not journal are taken from its report before anything is
    // sent; with --retry-unknown they were counted as left to send, which they no longer are.
    const taken = await answersOnlyReported(hold, journal);
    const relatedRefusal = await relativesRefusal(run, {
      relatives: identified.relatives,
      resumedNothing: hold.resumedNothing,
      valid: plan.valid,
      alreadySent: plan.alreadySent,
      seenBy: hold.seenBy,
      hashes: identified.hashes,
    });
    return planned(run, identified, hold, {
      plan,
      toSend: counted - (run.choices.retryUnknown ? taken : 0),
      resent,
      resuming: journal !== undefined,
      ...(relatedRefusal ? { relatedRefusal } : {}),
    });
  } catch (error) {
    // Nothing is sent while a campaign is validated: a disk that refuses here refuses the run.
    throw unsentStateError(error) ?? error;
  }
}

/** The plan's refusal (exit 2), thrown: invalid or no records, or over the cost cap. */
export function refuse(run: CampaignRun, campaign: PlannedCampaign): void {
  const problem = refusalError(
    campaign,
    run.inputs.map((input) => input.label),
  );
  if (problem) throw problem;
}

function planned(
  run: CampaignRun,
  identified: Identified,
  hold: CampaignHold,
  parts: Pick<Validated, 'plan' | 'toSend' | 'resent' | 'resuming' | 'relatedRefusal'>,
): Validated {
  return {
    identity: identified.identity,
    reportPath: identified.reportPath,
    shape: identified.shape,
    hashes: identified.hashes,
    refusal: refusalOf(parts.plan, run),
    followUp: run.followUp !== undefined,
    // A dry run says what a real run would be refused with.
    stateRefusal: hold.looked ? (hold.looked.refusal ?? parts.relatedRefusal) : undefined,
    tally: new Tally(run.io.clock),
    notes: hold.notes,
    ...parts,
  };
}

/** A finished campaign as its manifest tells it: as many records, none of the input read again. */
async function answered(
  run: CampaignRun,
  identified: Identified,
  hold: CampaignHold,
  answer: ManifestAnswer,
): Promise<Validated> {
  const plan = await planCampaign(
    { fileProblems: [], fileWarnings: [], records: async function* () {} },
    { batchSize: run.settings.batchSize },
  );
  await hold.closeSpool();
  const campaign = planned(run, identified, hold, {
    plan: { ...plan, records: answer.records },
    toSend: 0,
    resuming: true,
  });
  return { ...campaign, refusal: undefined, followUp: false, answer };
}

/** Rows a follow-up re-sent are the follow-up's now: a resume of the original leaves them. */
async function resentRows(
  run: CampaignRun,
  { identity, shape }: Identified,
): Promise<ReadonlyMap<number, string> | undefined> {
  if (run.followUp) return undefined;
  return rowsResent(run.store, identity.id, shape.target, { program: run.program });
}

/**
 * A resume takes back the answers its earlier run received but could not journal, from the
 * report that run wrote (docs/campaign-state.md#when-the-disk-fails), checked against the spool's
 * MessageIds: this run's, or for a dry run the one the stopped run kept.
 */
async function answersOnlyReported(
  hold: CampaignHold,
  journal: JournalState | undefined,
): Promise<number> {
  const state = hold.claim ?? hold.looked;
  const spool = state?.local?.spool;
  if (!journal || spool === undefined || !(await exists(spool))) return 0;
  const report = state?.previous?.reports.at(-1);
  return takeAnswersFromReport(journal, report, (keep) => readSpool(spool, keep));
}

/**
 * What the validation pass builds messages from, as the key of the spool it writes: the
 * campaign, its inputs and every setting and list a message depends on.
 */
async function spoolKeyOf(
  run: CampaignRun,
  { identity, suppression }: Identified,
  sentBy: readonly SentBy[],
): Promise<string> {
  const { settings, choices } = run;
  if (choices.dryRun || run.followUp) return '';
  // The lists as validation uses them (names and numbers, already read): no file is read twice.
  const lists = suppression?.lists.map((list) => ({
    name: list.name,
    numbers: createHash('sha256').update(list.numbers).digest('hex'),
  }));
  const dlrKey = createHash('sha256')
    .update((await run.store.dlrSecret()).export())
    .digest('hex');
  return keyOf({
    id: identity.id,
    contentHash: identity.contentHash,
    files: run.inputs.map((f) => f.label),
    inputFormat: choices.inputFormat,
    delimiter: choices.delimiter,
    mapping: choices.map ?? {},
    template: run.template,
    limit: choices.limit,
    dedupe: choices.dedupe,
    defaults: settings.defaults,
    country: settings.country,
    gsmNormalize: normalizes(run),
    maxSegments: settings.maxSegments,
    strict: settings.strict,
    batchSize: settings.batchSize,
    pricePerSegment: settings.pricePerSegment,
    currency: settings.currency,
    maxCost: settings.maxCost,
    lists,
    dlrKey,
    // Whom the campaigns --skip-sent-by names had sent to when the spool was made.
    sentBy: sentBy.map(({ id, numbers }) => ({
      id,
      numbers: createHash('sha256')
        .update(new Uint8Array(numbers.buffer, numbers.byteOffset, numbers.byteLength))
        .digest('hex'),
    })),
  });
}

/**
 * A resume of a campaign whose last run left its complete spool, stamped with the same key,
 * sends from it: no record is validated again (docs/campaign-state.md#the-kept-spool).
 */
async function reuseSpool(
  run: CampaignRun,
  hold: CampaignHold,
  key: string,
  settled: (row: number) => boolean,
): Promise<{ plan: Plan; toSend: number } | undefined> {
  const paths = hold.claim?.local;
  if (!paths || key === '' || !run.choices.resume) return undefined;
  const kept = await keptSpool(paths, key);
  return kept && { plan: kept.plan, toSend: kept.messages.count((row) => !settled(row)) };
}

/** The validation pass, writing the spool; a send's complete spool is stamped for a later run. */
async function validateAndKeep(
  run: CampaignRun,
  hold: CampaignHold,
  key: string,
  { identity, suppression, template }: Identified,
  settled: (row: number) => boolean,
): Promise<{ plan: Plan; toSend: number }> {
  await hold.openSpool();
  const { plan, toSend, timed, messages } = await validationPass(run, {
    identity,
    suppression,
    sentBy: hold.sentBy,
    seenBy: hold.seenBy,
    template,
    spool: hold.spool,
    // A dry run that resumes nothing spools nothing: it skips building each entry.
    spooling: !run.choices.dryRun || hold.journal !== undefined,
    settled,
  });
  await hold.closeSpool();
  const paths = hold.claim?.local;
  // Messages whose validity counts from now are built afresh by each run.
  if (paths && key !== '' && !timed && !refusalOf(plan, run)) {
    await stampSpool(paths, key, { plan, messages });
  }
  return { plan, toSend };
}
