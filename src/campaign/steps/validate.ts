// Step five of a campaign: the validation pass (or the complete spool an earlier run kept) plans
// it and writes every record ready to send to the spool; a resume counts only what is left, and
// takes back the answers an earlier run kept only in its report.
import { createHash } from 'node:crypto';
import { unsentStateError } from '../../shared/errors.js';
import { exists } from '../../shared/files.js';
import type { Plan } from '../../validate/plan.js';
import { readSpool, SpoolWriter } from '../../validate/spool.js';
import { takeAnswersFromReport } from '../kept-answers.js';
import { refusalError } from '../refusal.js';
import type { CampaignRun } from '../run.js';
import type { PlannedCampaign } from '../types.js';
import type { Look, RunHold } from './hold.js';
import { planned, type Validated } from './planned.js';
import type { Identified } from './identify.js';
import { keptSpool, keyOf, stampSpool, unstamp } from './kept-spool.js';
import { relativesRefusal } from './relatives.js';
import type { Settled } from './settled.js';
import type { SentBy } from './skip-sent.js';
import { messageSettings, refusalOf, validationPass } from './validation-pass.js';

export async function validate(
  run: CampaignRun,
  identified: Identified,
  hold: RunHold | Look,
  settled: Settled,
): Promise<Validated> {
  try {
    const key = await spoolKeyOf(run, identified, hold.sentBy);
    const { plan, toSend: counted } =
      (await reuseSpool(hold, key, settled)) ??
      (await validateAndKeep(run, hold, key, identified, settled));
    // Answers an earlier run could not journal are taken from its report before anything is
    // sent; with --retry-unknown they were counted as left to send, which they no longer are.
    const taken = await answersOnlyReported(hold, settled);
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
      resuming: settled.journal !== undefined,
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

/**
 * A resume takes back the answers its earlier run received but could not journal, from the
 * report that run wrote (docs/campaign-state.md#when-the-disk-fails), checked against the spool's
 * MessageIds: this run's, or for a dry run the one the stopped run kept.
 */
async function answersOnlyReported(hold: RunHold | Look, { journal }: Settled): Promise<number> {
  const { spool } = hold.local;
  const previous = hold.found.previous;
  if (!journal || !previous || !(await exists(spool))) return 0;
  return takeAnswersFromReport(journal, previous.reports.at(-1), (keep) => readSpool(spool, keep));
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
  const [dlrKey] = (await run.store.dlrKeys(true)).keys;
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
    message: messageSettings(run),
    strict: settings.strict,
    batchSize: settings.batchSize,
    pricePerSegment: settings.pricePerSegment,
    currency: settings.currency,
    maxCost: settings.maxCost,
    lists,
    dlrKey: createHash('sha256').update(dlrKey!.export()).digest('hex'),
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
  hold: RunHold | Look,
  key: string,
  { isSettled }: Settled,
): Promise<{ plan: Plan; toSend: number } | undefined> {
  if (hold.kind === 'look' || key === '' || !hold.resume) return undefined;
  const kept = await keptSpool(hold.local, key);
  return kept && { plan: kept.plan, toSend: kept.messages.count((row) => !isSettled(row)) };
}

/** The validation pass, writing the spool; a send's complete spool is stamped for a later run. */
async function validateAndKeep(
  run: CampaignRun,
  hold: RunHold | Look,
  key: string,
  { identity, suppression, template }: Identified,
  settled: Settled,
): Promise<{ plan: Plan; toSend: number }> {
  const paths = hold.kind === 'run' ? hold.local : undefined;
  // The spool this run's pass writes: no longer complete, so no longer stamped.
  if (paths) await unstamp(paths);
  const spool = paths && (await SpoolWriter.create(paths.spool));
  const { plan, toSend, timed, messages } = await validationPass(run, {
    identity,
    suppression,
    sentBy: hold.sentBy,
    seenBy: hold.seenBy,
    template,
    spool,
    // A dry run that resumes nothing spools nothing: it skips building each entry.
    spooling: hold.kind === 'run' || settled.journal !== undefined,
    settled: settled.isSettled,
  }).finally(() => spool?.close());
  // Messages whose validity counts from now are built afresh by each run.
  if (paths && key !== '' && !timed && !refusalOf(plan, run)) {
    await stampSpool(paths, key, { plan, messages });
  }
  return { plan, toSend };
}
