// The main job without a terminal: campaign identity and state, the validation pass, then the send pass.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { loadDlrSecret } from '../../journal/dlr-secret.js';
import { InputDigests } from '../../journal/input-digests.js';
import type { CampaignIdentity, CampaignShape } from '../../journal/identity.js';
import type { JournalState } from '../../journal/journal.js';
import type { CampaignPaths, Manifest } from '../../journal/state.js';
import { loadSuppression, type Suppression } from '../../message/suppress.js';
import { compileTemplate } from '../../message/template.js';
import { Tally } from '../../report/summary.js';
import { unsentStateError, UsageError } from '../../shared/errors.js';
import { exists } from '../../shared/files.js';
import { planCampaign, type Plan } from '../../validate/plan.js';
import { readSpool } from '../../validate/spool.js';
import { AnsweredCampaign, answersFromManifest } from './answered.js';
import { checkInputsUnchanged, rowsResent } from '../follow-up/index.js';
import { CampaignHold, reportPathFor } from './hold.js';
import { hashInputs, identify } from './identify.js';
import { settledRows } from './resume.js';
import { sendPass } from './send-pass.js';
import type {
  CampaignRequest,
  CampaignResult,
  PreparedCampaign,
  Refusal,
  SendPassOptions,
} from '../types.js';
import { normalizes, refusalOf, validateCampaign, type ValidationTarget } from './validation.js';
import { takeAnswersFromReport } from './kept-answers.js';
import { keptSpool, keyOf, stampSpool } from './kept-spool.js';

/**
 * Everything before the first message: identity, the campaign's state (exit 4 while another run
 * holds it; exit 2 when it was sent or is unfinished, unless --force or --resume), the report's
 * lock, and the validation pass, which writes every record ready to send to the spool.
 */
export async function prepareCampaign(request: CampaignRequest): Promise<PreparedCampaign> {
  const { settings, files, followUp } = request;
  const template = request.template === undefined ? undefined : compileTemplate(request.template);
  // A send remembers its inputs' digests, so its resume need not read them again.
  const digests = await InputDigests.open(settings.stateDir);
  const hashes = await hashInputs(files, digests);
  if (!request.dryRun) await digests.save();
  // Every list is read (and refused, exit 2) before the campaign's state is looked at.
  const suppression = await loadSuppression(settings.suppress, settings.country);
  if (followUp) checkInputsUnchanged(files, hashes, followUp);
  const { identity, shape } = await identify(request, hashes);
  const reportPath = await reportPathFor(request, identity);
  const hold = new CampaignHold();
  try {
    const inspected = await hold.take(request, { identity, reportPath, hashes });
    if (hold.claim?.finished) {
      const answer = await answersFromManifest(request, hold.claim, reportPath);
      if (answer) {
        // Its records, as many as the manifest says; nothing of the input is read again.
        const plan = await planCampaign(
          { fileProblems: [], fileWarnings: [], records: async function* () {} },
          { batchSize: settings.batchSize },
        );
        await hold.closeSpool();
        return new AnsweredCampaign(identity, reportPath, answer, hold, {
          ...plan,
          records: answer.records,
        });
      }
      await hold.claim.loadJournal();
    }
    const journal = hold.claim?.journal ?? inspected?.journal;
    // Rows a follow-up re-sent are the follow-up's now: a resume of the original leaves them.
    const resent =
      journal && !followUp
        ? await rowsResent(settings.stateDir, identity.id, shape.target, {
            program: request.program,
          })
        : undefined;
    const settled = journal ? settledRows(journal, request.retryUnknown, resent) : () => false;
    const key = await spoolKeyOf(request, identity, suppression);
    const { plan, toSend: counted } =
      (await reuseSpool(request, hold, key, settled)) ??
      (await validateAndKeep(request, hold, key, {
        identity,
        suppression,
        template,
        spool: undefined,
        // A dry run that resumes nothing spools nothing: it skips building each entry.
        spooling: !request.dryRun || journal !== undefined,
        settled,
      }));
    // Answers an earlier run could not journal are taken from its report before anything is
    // sent; with --retry-unknown they were counted as left to send, which they no longer are.
    const taken = await takeKeptAnswers(hold.claim ?? inspected, journal);
    const toSend = counted - (request.retryUnknown ? taken : 0);
    return new Prepared(request, hold, {
      identity,
      shape,
      reportPath,
      plan,
      toSend,
      resent,
      hashes,
      resuming: journal !== undefined,
      stateRefusal: inspected?.refusal,
    });
  } catch (error) {
    await hold.close();
    // Nothing is sent while a campaign is prepared: a disk that refuses here refuses the run.
    throw unsentStateError(error) ?? error;
  }
}

/**
 * A resume takes back the answers its earlier run received but could not journal, from the
 * report that run wrote (docs/campaign-state.md#when-the-disk-fails), checked against the spool's
 * MessageIds: this run's, or for a dry run the one the stopped run kept.
 */
async function takeKeptAnswers(
  state: { paths?: CampaignPaths; previous?: Manifest } | undefined,
  journal: JournalState | undefined,
): Promise<number> {
  const spool = state?.paths?.spool;
  if (!journal || spool === undefined || !(await exists(spool))) return 0;
  const report = state?.previous?.reports.at(-1);
  return takeAnswersFromReport(journal, report, (keep) => readSpool(spool, keep));
}

/**
 * What the validation pass builds messages from, as the key of the spool it writes: the
 * campaign, its inputs and every setting and list a message depends on.
 */
async function spoolKeyOf(
  request: CampaignRequest,
  identity: CampaignIdentity,
  suppression: Suppression | undefined,
): Promise<string> {
  const { settings } = request;
  if (request.dryRun || request.followUp) return '';
  // The lists as validation uses them (names and numbers, already read): no file is read twice.
  const lists = suppression?.lists.map((list) => ({
    name: list.name,
    numbers: createHash('sha256').update(list.numbers).digest('hex'),
  }));
  const dlrKey = createHash('sha256')
    .update((await loadDlrSecret(settings.stateDir)).export())
    .digest('hex');
  return keyOf({
    id: identity.id,
    contentHash: identity.contentHash,
    files: request.files.map((f) => f.label),
    inputFormat: request.inputFormat,
    delimiter: request.delimiter,
    mapping: request.mapping,
    template: request.template,
    limit: request.limit,
    dedupe: request.dedupe,
    defaults: settings.defaults,
    country: settings.country,
    gsmNormalize: normalizes(request),
    maxSegments: settings.maxSegments,
    strict: settings.strict,
    batchSize: settings.batchSize,
    pricePerSegment: settings.pricePerSegment,
    currency: settings.currency,
    maxCost: settings.maxCost,
    lists,
    dlrKey,
  });
}

/**
 * A resume of a campaign whose last run left its complete spool, stamped with the same key,
 * sends from it: no record is validated again (docs/campaign-state.md#the-kept-spool).
 */
async function reuseSpool(
  request: CampaignRequest,
  hold: CampaignHold,
  key: string,
  settled: (row: number) => boolean,
): Promise<{ plan: Plan; toSend: number } | undefined> {
  const paths = hold.claim?.paths;
  if (!paths || key === '' || !request.resume) return undefined;
  const kept = await keptSpool(paths, key);
  return kept && { plan: kept.plan, toSend: kept.messages.count((row) => !settled(row)) };
}

/** The validation pass, writing the spool; a send's complete spool is stamped for a later run. */
async function validateAndKeep(
  request: CampaignRequest,
  hold: CampaignHold,
  key: string,
  target: ValidationTarget,
): Promise<{ plan: Plan; toSend: number }> {
  await hold.openSpool();
  const { plan, toSend, timed, messages } = await validateCampaign(request, {
    ...target,
    spool: hold.spool,
  });
  await hold.closeSpool();
  const paths = hold.claim?.paths;
  // Messages whose validity counts from now are built afresh by each run.
  if (paths && key !== '' && !timed && !refusalOf(plan, request)) {
    await stampSpool(paths, key, { plan, messages });
  }
  return { plan, toSend };
}

/** A validated campaign: its plan, and the send pass it allows once. */
class Prepared implements PreparedCampaign {
  readonly identity: CampaignIdentity;
  readonly reportPath: string;
  readonly plan: Plan;
  readonly refusal: Refusal | undefined;
  readonly toSend: number;
  readonly resuming: boolean;
  readonly followUp: boolean;
  readonly stateRefusal: UsageError | undefined;
  readonly tally = new Tally();
  private sent = false;

  constructor(
    private readonly request: CampaignRequest,
    private readonly hold: CampaignHold,
    private readonly parts: {
      identity: CampaignIdentity;
      shape: CampaignShape;
      reportPath: string;
      plan: Plan;
      toSend: number;
      resent: ReadonlyMap<number, string> | undefined;
      hashes: { sha256: string; bytes: number }[];
      resuming: boolean;
      stateRefusal: UsageError | undefined;
    },
  ) {
    this.identity = parts.identity;
    this.reportPath = parts.reportPath;
    this.plan = parts.plan;
    this.refusal = refusalOf(parts.plan, request);
    this.toSend = parts.toSend;
    this.resuming = parts.resuming;
    this.followUp = request.followUp !== undefined;
    this.stateRefusal = parts.stateRefusal;
  }

  get notes(): readonly string[] {
    return this.hold.notes;
  }

  async send(options: SendPassOptions): Promise<CampaignResult> {
    const { claim } = this.hold;
    if (!claim || this.refusal || this.sent) throw new Error('this campaign cannot be sent');
    this.sent = true;
    const { identity, shape, reportPath, plan, resent, hashes } = this.parts;
    const tally = this.tally;
    return sendPass(
      this.request,
      { claim, identity, shape, reportPath, plan, tally, resent, hashes },
      options,
    );
  }

  close(): Promise<void> {
    return this.hold.close();
  }
}

/** `--text` or `--text-file` (its last newline dropped), never both. */
export async function loadTemplate(
  text: string | undefined,
  textFile: string | undefined,
): Promise<string | undefined> {
  if (text !== undefined && textFile !== undefined) {
    throw new UsageError('give --text or --text-file, not both');
  }
  if (textFile === undefined) return text;
  try {
    return (await readFile(textFile, 'utf8')).replace(/\r?\n$/, '');
  } catch {
    throw new UsageError(`cannot read --text-file ${textFile}`);
  }
}
