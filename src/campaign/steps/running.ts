// Step seven of a campaign: it is marked running in its manifest (what it is, from what, sent where),
// and from here on its state is kept, whatever happens. The run's time starts here.
import { hostname } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { MANIFEST_VERSION, type StartFields } from '../../journal/manifest.js';
import { HoldLostError, type Held } from '../../journal/store.js';
import { OUTCOMES, type Outcome } from '../../message/outcome.js';
import { LockedError, unsentStateError } from '../../shared/errors.js';
import type { CampaignRun } from '../run.js';
import type { Owner, RunHold } from './hold.js';
import type { Validated } from './planned.js';
import { markSuperseded } from './skip-sent.js';

/**
 * Marks the campaign running, sent to `sentTo` (the endpoint, or "simulator"), and says what
 * starting did to earlier state (a rehearsal set aside). Nothing has gone yet: a manifest that
 * cannot be written refuses the run (exit 2).
 */
export async function markRunning(
  run: CampaignRun,
  campaign: Validated,
  hold: RunHold,
  sentTo: string,
): Promise<void> {
  // The run's time (its rate, its ETA) is sending time: not the validation before it, not the
  // confirmation prompt (which waits for a person), not the wait for the send window.
  campaign.tally.startedAt = run.io.clock.now();
  run.io.events.emit('started', { at: campaign.tally.startedAt });
  const notes = await hold.claim
    .start(manifestOf(run, campaign, hold, sentTo))
    .catch((error: unknown) => {
      if (error instanceof HoldLostError) {
        throw new LockedError(`${error.message} before this run sent anything: nothing was sent`);
      }
      throw unsentStateError(error) ?? error;
    });
  for (const note of notes) run.io.events.emit('note', note);
}

/**
 * Tells each campaign this run sends the rest of (--skip-sent-by) so, in its own manifest, once
 * this run is marked running and before anything is sent: from here on it is not continued,
 * whatever happens to this run's own state. A write that fails refuses the run (nothing went).
 */
export async function markSupersedes(campaign: Validated, hold: RunHold): Promise<void> {
  await markSuperseded(hold.supersedes, campaign.identity.id).catch((error: unknown) => {
    if (error instanceof HoldLostError) {
      throw new LockedError(`${error.message} before this run sent anything: nothing was sent`);
    }
    throw unsentStateError(error) ?? error;
  });
}

/**
 * The report another recorded campaign wrote where this run writes its own, set aside as the run
 * starts (with --force, or when --skip-sent-by names that campaign): renamed with that campaign's
 * ID, its manifest told so, so its own rows stay its own. Said in a note.
 */
export async function setOwnersReportAside(
  run: CampaignRun,
  campaign: Validated,
  hold: RunHold,
): Promise<void> {
  const owner = hold.reportOwner;
  if (!owner) return;
  const held = hold.skipHolds.get(owner.id);
  const moved = await movedAside(owner, held, campaign.reportPath).catch((error: unknown) => {
    throw unsentStateError(error) ?? error;
  });
  if (moved !== undefined) {
    run.io.events.emit(
      'note',
      `the report ${campaign.reportPath} was campaign ${owner.id}'s: it is kept as ${moved}`,
    );
  }
}

/** The owner's report set aside: through this run's hold on it, or one taken for the move. */
async function movedAside(
  owner: Owner,
  held: Held | undefined,
  report: string,
): Promise<string | undefined> {
  if (held) return held.moveReport(report);
  const taken = await owner.store.hold(owner.id, `setting its report ${report} aside`);
  try {
    return await taken.moveReport(report);
  } finally {
    await taken.release();
  }
}

/** The manifest of a campaign that starts running: what it is, from what, to where. */
function manifestOf(
  run: CampaignRun,
  campaign: Validated,
  hold: RunHold,
  sentTo: string,
): StartFields {
  const { identity, plan, shape, hashes } = campaign;
  const { settings, followUp } = run;
  const startedAt = new Date(run.io.clock.now()).toISOString();
  return {
    v: MANIFEST_VERSION,
    id: identity.id,
    named: identity.named,
    contentHash: identity.contentHash,
    inputs: run.inputs.map((f, i) => ({
      path: f.label === '-' ? '-' : resolvePath(f.path),
      ...hashes[i]!,
    })),
    target: sentTo,
    report: resolvePath(campaign.reportPath),
    host: hostname(),
    ...(run.choices.limit === undefined ? {} : { limit: run.choices.limit }),
    startedAt,
    updatedAt: startedAt,
    status: 'running',
    records: plan.records,
    // A resumed run starts from what the earlier runs settled: a list of campaigns, which reads
    // manifests only, shows no less for a run killed before it could write its own summary.
    counts:
      hold.resume && hold.found.previous
        ? { ...hold.found.previous.counts }
        : (Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>),
    shape,
    // The built-in simulator's runs are rehearsals from the start; another simulator's are
    // known by its answers, when the run ends.
    ...(shape.target === 'simulator' ? { rehearsal: true as const } : {}),
    ...(settings.suppress.length > 0
      ? { suppress: settings.suppress.map((list) => resolvePath(list.path)) }
      : {}),
    ...(followUp ? { followUp: { ...followUp.of, rows: [...followUp.rows] } } : {}),
    ...(settings.pricePerSegment === undefined
      ? {}
      : {
          pricing: {
            pricePerSegment: settings.pricePerSegment,
            ...(settings.currency === undefined ? {} : { currency: settings.currency }),
          },
        }),
  };
}
