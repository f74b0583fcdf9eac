// The validation pass of step three: every record read and built, the plan tallied, and each record
// ready to send written to the spool, counting what this run will send (on resume, what is left).
import { join } from 'node:path';
import { ephemeralKey } from '../../journal/dlr-keys.js';
import type { CampaignIdentity } from '../../journal/identity.js';
import type { MessageSettings } from '../../message/build.js';
import type { Suppression } from '../../message/suppress.js';
import type { Template } from '../../message/template.js';
import { windowState, type SendWindow } from '../../shared/window.js';
import { entryOf } from '../../validate/entries.js';
import { planCampaign, type Plan } from '../../validate/plan.js';
import { readCampaign } from '../../validate/reader.js';
import type { SpoolWriter } from '../../validate/spool.js';
import { selectRows } from '../follow-up/index.js';
import type { CampaignRun } from '../run.js';
import type { Refusal } from '../types.js';
import { RowBits } from './row-bits.js';
import type { SentBy } from './skip-sent.js';

/** What the pass writes to, and what it leaves out. */
export interface PassTarget {
  identity: CampaignIdentity;
  suppression: Suppression | undefined;
  /** Whom the campaigns --skip-sent-by names may have sent to: left out. */
  sentBy: readonly SentBy[];
  /** Whom the campaign's relatives may have sent to: counted. */
  seenBy: readonly SentBy[];
  template: Template | undefined;
  /** Where records ready to send go: a real run's spool. */
  spool: SpoolWriter | undefined;
  /** Spool lines are made (a real run, or a dry run that resumes and counts what is left). */
  spooling: boolean;
  /** Rows an earlier run settled: not this run's to send. */
  settled: (row: number) => boolean;
}

export async function validationPass(
  run: CampaignRun,
  target: PassTarget,
): Promise<{ plan: Plan; toSend: number; timed: boolean; messages: RowBits }> {
  const { settings, followUp, choices } = run;
  const { identity, spool: writer, spooling, settled } = target;
  let toSend = 0;
  /** The rows of the messages spooled, kept with the spool for a later run. */
  const messages = RowBits.empty();
  // Whether a message carries a validity counted from now: a later run must build it afresh.
  let timed = false;
  const countRepeats = choices.dryRun === true && !choices.dedupe;
  const tallied = {
    gsmNormalize: normalizes(run),
    template: run.template,
    pricePerSegment: settings.pricePerSegment,
  };
  const reader = readCampaign({
    files: run.inputs,
    inputFormat: choices.inputFormat,
    delimiter: choices.delimiter,
    mapping: choices.map ?? {},
    template: target.template,
    message: messageSettings(run),
    campaignKey: identity.stem,
    now: sendsFrom(settings.sendWindow, run.at),
    limit: choices.limit,
    dedupe: choices.dedupe,
    suppress: target.suppression,
    ...(target.sentBy.length > 0 ? { sentBy: target.sentBy } : {}),
    ...(target.seenBy.length > 0 ? { seenBy: target.seenBy } : {}),
    strict: settings.strict,
    // A dry run sends no URL: a key of its own makes proofs of the same length.
    dlrSigner: {
      key: choices.dryRun ? ephemeralKey() : (await run.store.dlrKeys(true)).keys[0]!,
      campaign: identity.id,
    },
    // Only a dry run, whose validation is the whole job, takes worker threads: a send's would
    // keep their memory (which the allocator keeps after they end) through the whole send, for
    // time its sending dwarfs (docs/input.md#large-inputs). A follow-up picks its rows out of
    // built records, which parts validated by workers (spooled as they come) are not.
    parallel:
      followUp || !choices.dryRun
        ? undefined
        : { ...run.workers, spool: spooling, digests: countRepeats, tally: tallied },
  });
  const plan = await planCampaign(
    followUp ? selectRows(reader, followUp.rows, identity.stem) : reader,
    {
      batchSize: settings.batchSize,
      ...tallied,
      currency: settings.currency,
      maxCost: settings.maxCost,
      onRecord: spooling
        ? (record) => {
            const entry = entryOf(record);
            if (record.built.ok && record.built.message.ValidationPeriod !== undefined)
              timed = true;
            if (entry.kind === 'message') {
              messages.add(entry.row);
              if (!settled(entry.row)) toSend++;
            }
            writer?.add(entry);
            return undefined;
          }
        : undefined,
      onSpool: spooling
        ? (lines, messageRows) => {
            timed = true;
            for (const row of messageRows) {
              messages.add(row);
              if (!settled(row)) toSend++;
            }
            writer?.addBytes(lines);
            return undefined;
          }
        : undefined,
      onProgress: (records) => run.io.events.emit('validated', records),
      countRepeats,
      spillDir: join(settings.stateDir, 'tmp'),
    },
  );
  return { plan, toSend, timed, messages };
}

/** Why the plan refuses the run, if it does. */
export function refusalOf(plan: Plan, run: CampaignRun): Refusal | undefined {
  if (plan.fileProblems.length > 0 || (plan.invalid > 0 && !run.choices.skipInvalid)) {
    return 'invalid-input';
  }
  if (plan.records === 0) return 'empty-input';
  if (plan.cost?.maxCost !== undefined && plan.cost.total > plan.cost.maxCost) {
    return 'over-max-cost';
  }
  return undefined;
}

/** How this run builds each message: its settings, and a follow-up's normalising as its original's. */
export function messageSettings(run: CampaignRun): MessageSettings {
  const { settings } = run;
  return {
    defaults: settings.defaults,
    country: settings.country,
    gsmNormalize: normalizes(run),
    maxSegments: settings.maxSegments,
  };
}

/** Whether texts are normalised: as the original campaign did for a follow-up, else as asked. */
export function normalizes(run: CampaignRun): boolean {
  const { followUp } = run;
  return followUp ? followUp.shape.gsmNormalize === true : run.settings.gsmNormalize;
}

/**
 * When sending can start: now, or when a closed send window opens. A relative --validity counts
 * from then, or a run that waits for its window would send messages already expired.
 */
function sendsFrom(window: SendWindow | undefined, now: Date): Date {
  const state = window ? windowState(window, now.getTime()) : undefined;
  return state && !state.open ? new Date(state.opensAt) : now;
}
