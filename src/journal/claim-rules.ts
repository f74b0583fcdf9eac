// What every store does the same way when a run claims a campaign: the state decided (decide.ts)
// with a refusal worded for the store, what the claim then finds, and a rehearsal's leftovers set
// aside as the run starts.
import { basename, dirname, join } from 'node:path';
import {
  decideClaim,
  nothingToResume,
  type ClaimOptions,
  type Decision,
  type StoredState,
} from './decide.js';
import type { Manifest } from './manifest.js';
import type { CampaignEntry, Found } from './store.js';

/** The campaigns a decision may name: where they are, and their list. */
export interface Kin {
  where: string;
  campaigns(): Promise<CampaignEntry[]>;
}

/** The state's decision, with the refusal of a --resume that finds nothing worded for this store. */
export async function decided(
  kin: Kin,
  state: StoredState,
  options: ClaimOptions,
): Promise<Decision> {
  const decision = decideClaim(state, options);
  if (!decision.nothingToResume) return decision;
  const same = (options.inputs ?? []).map((i) => i.sha256).join(',');
  const sameInputs = same
    ? (await kin.campaigns()).find((e) => e.manifest.inputs.map((i) => i.sha256).join(',') === same)
    : undefined;
  throw nothingToResume(options, kin.where, sameInputs?.manifest, sameInputs?.status);
}

/** What a claim finds, given what the state decided: what it keeps, resumes or sets aside. */
export function foundOf(decision: Decision): Found {
  return {
    ...(decision.keepManifest && decision.manifest ? { previous: decision.manifest } : {}),
    ...(decision.setAside && decision.manifest ? { rehearsal: decision.manifest } : {}),
    ...(decision.resumeFrom ? { journal: decision.resumeFrom } : {}),
    finished: decision.finished === true,
    done: decision.done === true,
  };
}

/** How a store sets a rehearsal's leftovers aside: its campaign, and a report of its. */
export interface RehearsalAside {
  /** Keeps the finished rehearsal under a name of its own, which it returns. */
  campaign(rehearsal: Manifest): Promise<string>;
  /** Renames a rehearsal's report at `path`; undefined when there was none to move. */
  report(path: string): Promise<string | undefined>;
}

/**
 * What a rehearsal left in the way of a run that starts: the campaign's own finished rehearsal,
 * set aside under a name of its own, and a report a rehearsal wrote where this run writes its
 * own, renamed. Done as the run starts, never before; returns what to say of it.
 */
export async function setAsideRehearsals(
  rehearsal: Manifest | undefined,
  rehearsalReport: string | undefined,
  aside: RehearsalAside,
): Promise<string[]> {
  const notes: string[] = [];
  if (rehearsal) {
    const keptAs = await aside.campaign(rehearsal);
    notes.push(
      `campaign ${rehearsal.id} was a rehearsal (sent to a simulator only): kept as ${keptAs}; ` +
        'this run starts it afresh',
    );
  }
  if (rehearsalReport === undefined) return notes;
  const moved = await aside.report(rehearsalReport);
  if (moved !== undefined) {
    // Beside it: named as the user named the report, not as the store resolved it.
    const shown = join(dirname(rehearsalReport), basename(moved));
    notes.push(`the report ${rehearsalReport} was a rehearsal's: it is now ${shown}`);
  }
  return notes;
}
