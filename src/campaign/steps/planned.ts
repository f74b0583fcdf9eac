// A campaign planned, as the caller is shown it before anything is sent and as the steps after
// its confirmation take it: from the validation pass, or from a finished campaign's manifest.
import type { CampaignShape } from '../../journal/identity.js';
import type { Manifest, ManifestSummary } from '../../journal/manifest.js';
import { Tally } from '../../report/summary.js';
import type { UsageError } from '../../shared/errors.js';
import type { CampaignRun } from '../run.js';
import type { PlannedCampaign, ReportElsewhere } from '../types.js';
import type { Look, RunHold } from './hold.js';
import type { Identified } from './identify.js';
import { refusalOf } from './validation-pass.js';

/** A finished campaign's manifest, with the summary its last run wrote. */
export type ManifestAnswer = Manifest & {
  summary: ManifestSummary;
  /** --once: the campaign is finished, and that is all this run had to know (exit 0). */
  done?: boolean;
  /** The campaign's report, when it is not the file this run names on this host. */
  elsewhere?: ReportElsewhere;
};

/** A finished campaign as its manifest answers it. */
export type Answered = Validated & { answer: ManifestAnswer };

/** A campaign planned, with what the steps after the caller's confirmation take from it. */
export interface Validated extends PlannedCampaign {
  shape: CampaignShape;
  hashes: Identified['hashes'];
  /** A finished campaign's resume that would send nothing: its manifest's answer. */
  answer?: ManifestAnswer;
  /**
   * Why a real run is refused for a relative (the same input path or report, unfinished or in the
   * way): what it would send again, and the flag that sends nothing twice.
   */
  relatedRefusal?: UsageError;
}

/** The planned campaign the caller is shown: a dry run's with what a real run would be refused with. */
export function planned(
  run: CampaignRun,
  identified: Identified,
  hold: RunHold | Look,
  parts: Pick<Validated, 'plan' | 'toSend' | 'resuming' | 'relatedRefusal'>,
): Validated {
  return {
    identity: identified.identity,
    reportPath: identified.reportPath,
    shape: identified.shape,
    hashes: identified.hashes,
    refusal: refusalOf(parts.plan, run),
    followUp: run.followUp !== undefined,
    stateRefusal: hold.kind === 'look' ? (hold.refusal ?? parts.relatedRefusal) : undefined,
    tally: new Tally(run.io.clock),
    notes: hold.notes,
    ...parts,
  };
}
