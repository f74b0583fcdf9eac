// Before anything is sent, a campaign's state decides: start, resume, or refuse (finished,
// unfinished, held, sent from other inputs). A pure function over what the state holds, read once
// by the store before it: every store decides the same way.
import { leadingTo, UsageError } from '../shared/errors.js';
import { groupDigits, plural } from '../shared/count.js';
import type { CampaignIdentity } from './identity.js';
import type { CampaignStatus, Manifest } from './manifest.js';
import { emptyJournalState, type JournalState } from './reading.js';

/** What a run asks of a campaign's state. */
export interface ClaimOptions {
  identity: CampaignIdentity;
  force: boolean;
  resume: boolean;
  /**
   * --once: start the campaign, resume it when an earlier run left it unfinished, or do nothing
   * when it is finished; never a refusal for having run before.
   */
  once?: boolean;
  /** The inputs' hashes, to name a campaign from the same files when there is nothing to resume. */
  inputs?: readonly { sha256: string }[];
  /** The report this run would write, when it exists already (and is not to be replaced). */
  existingReport?: string;
  /**
   * The report this run writes, when a rehearsal wrote it and the campaign's state lets this run
   * in: moved out of the way once the run starts, never before.
   */
  rehearsalReport?: string;
}

/** What a campaign's state holds, as the store read it, once, before deciding. */
export interface StoredState {
  /** Something of the campaign was there (a run killed before its first batch leaves that much). */
  existed: boolean;
  manifest?: Manifest;
  /**
   * Its journal: not read for a finished campaign (its manifest has its counts, and a journal
   * grows with every record), undefined when it has none.
   */
  journal?: JournalState;
  /** A --force run set an earlier journal aside: proof of earlier sends. */
  archived: boolean;
}

export interface Decision {
  manifest?: Manifest;
  /** The campaign's state is a finished rehearsal's: set aside when the fresh run starts. */
  setAside?: boolean;
  /** Start without the earlier journal. */
  fresh: boolean;
  /** The earlier manifest stays the campaign's (its reports, creation time, runs). */
  keepManifest: boolean;
  /** The journal --resume continues from. */
  resumeFrom?: JournalState;
  /** --resume of a finished campaign, whose journal is read only when needed. */
  finished?: boolean;
  /** --resume of a campaign no run of which is recorded: the store words the refusal. */
  nothingToResume?: boolean;
  /** --once of a finished campaign: nothing to do. */
  done?: boolean;
}

/** What the campaign's state allows, or the refusal (exit 2) that says why not. */
export function decideClaim(state: StoredState, options: ClaimOptions): Decision {
  const { identity } = options;
  const { manifest, journal } = state;
  const finished = manifest?.status === 'finished';
  // What a --force run archived proves earlier sends, even while its own journal is still empty.
  const sentBefore =
    (manifest && finished ? reachedGateway(manifest) : journal?.sent === true) || state.archived;
  if (!manifest || !sentBefore) {
    // --resume of a campaign that never ran here is no resume: with other settings or another
    // --campaign name it would be a new campaign, sending everything again.
    if (options.resume && !state.existed && !options.once) {
      return { manifest, fresh: true, keepManifest: false, nothingToResume: true };
    }
    return { manifest, fresh: true, keepManifest: false };
  }
  // A finished rehearsal (every run went to a simulator) makes nothing sent: a new run starts
  // afresh, and the rehearsal is kept under a name of its own. A --resume goes on with it. An
  // unfinished one is refused like any campaign: what a rehearsal rehearses is that guard.
  if (manifest.rehearsal && finished && !options.resume)
    return { manifest, fresh: true, keepManifest: false, setAside: true };
  const status: CampaignStatus = manifest.status === 'running' ? 'interrupted' : manifest.status;
  if (manifest.contentHash !== identity.contentHash && !options.force) {
    throw new UsageError(
      `campaign ${identity.id} was ${verb(status)} on ${day(manifest)} from other inputs or ` +
        'settings, so its records cannot be matched; nothing was sent. ' +
        'Give this content its own --campaign name, or --force to send it under this name anyway.',
      'input-changed',
    );
  }
  if (options.once && finished && !manifest.rehearsal) {
    return { manifest, fresh: false, keepManifest: true, finished, done: true };
  }
  if (options.force) return { manifest, fresh: true, keepManifest: true };
  // Another campaign sent the rest of this one: going on with it (its --resume past a limit, its
  // unsent records, what --once would finish) would send that campaign's recipients again.
  if (manifest.supersededBy?.length) throw new SupersededRefusal(manifest, status);
  if (options.resume && finished) return { manifest, fresh: false, keepManifest: true, finished };
  if (options.resume || options.once) {
    return {
      manifest,
      fresh: false,
      keepManifest: true,
      resumeFrom: journal ?? emptyJournalState(),
    };
  }
  throw refusal(manifest, status, journal);
}

/**
 * The refusal of a --resume that finds nothing to resume, naming `kin`, a campaign sent from the
 * same input files with other settings, when there is one.
 */
export function nothingToResume(
  options: ClaimOptions,
  where: string,
  kin: Manifest | undefined,
  kinStatus?: CampaignStatus,
): UsageError {
  const { identity } = options;
  const hint = kin
    ? ` Campaign ${kin.id} (${kinStatus ?? kin.status}, started ${kin.startedAt.slice(0, 10)}) ` +
      'was sent from the same input files with other settings (sender, template, mapping, ' +
      'message defaults, --country, --gsm-normalize, --simulate or --campaign name): to finish ' +
      'it, run with ' +
      `exactly the settings it was started with${kin.named ? ` (--campaign ${kin.id})` : ''}.`
    : options.existingReport === undefined
      ? ' Without --resume this content is sent as a new campaign.'
      : ` Without --resume, and with --force to replace its report ${options.existingReport}, ` +
        'this content is sent as a new campaign.';
  const error = new UsageError(
    `nothing to resume: no run of campaign ${identity.id} is recorded in ${where}. ` +
      `Nothing was sent.${hint}`,
    'nothing-to-resume',
  );
  // Other settings made the campaign from the same files: only the user knows which they were.
  if (kin) return error;
  return leadingTo(error, {
    say: 'Send it as a new campaign',
    drop: ['--resume'],
    add: options.existingReport === undefined ? [] : ['--force'],
  });
}

/** Whether a finished run's counts hold a result the journal records (as its `sent` says). */
function reachedGateway(manifest: Manifest): boolean {
  const { accepted, rejected, failed, unknown } = manifest.counts;
  return accepted + rejected + failed + unknown > 0;
}

function refusal(
  manifest: Manifest,
  status: CampaignStatus,
  journal: JournalState | undefined,
): UsageError {
  const report = manifest.reports.at(-1);
  if (status === 'finished') {
    const { failed, skipped, accepted, unknown } = manifest.counts;
    if (manifest.limit !== undefined && skipped > 0) return pilotRefusal(manifest);
    const error = new UsageError(
      `campaign ${manifest.id} was already sent on ${day(manifest)}: ` +
        `${countsText(manifest.counts)}; report ${report ?? '(none)'}. Nothing was sent. ` +
        `--force sends it all again${twice(accepted + unknown)}` +
        (failed > 0
          ? `; --resume sends only its ${groupDigits(failed)} failed records again.`
          : '.'),
      'already-sent',
    );
    // Sending it all again is for the user to choose; what it sent, or its failed records, are
    // what moves them on.
    return leadingTo(
      error,
      failed > 0
        ? { say: 'Send only its failed records again', add: ['--resume'] }
        : {
            say: 'See what it sent',
            args: report === undefined ? ['campaigns', 'show', manifest.id] : ['report', report],
          },
    );
  }
  // A run that ended by itself (stopped, or interrupted and wound down) wrote its counts to the
  // manifest: the summary's, `campaigns`' and the report's. A killed run's manifest still says
  // running, written at its start: the journal knows what it settled.
  if (manifest.status === 'running') {
    return new KilledRunRefusal(manifest, journal ?? emptyJournalState());
  }
  const error = new UsageError(unfinished(manifest, status, manifest.counts), 'unfinished');
  return leadingTo(error, FINISH_IT);
}

const FINISH_IT = { say: 'Finish it', add: ['--resume'], drop: ['--force'] };

/**
 * A campaign sent with --limit (a pilot), refused when sent again: what --limit left out is sent
 * by --skip-sent-by as a campaign of its own, or by --resume, which takes the campaign on past its
 * limit; neither sends what the pilot sent.
 */
function pilotRefusal(manifest: Manifest): UsageError {
  const { skipped, accepted, unknown } = manifest.counts;
  const error = new UsageError(
    `campaign ${manifest.id} was sent on ${day(manifest)} with --limit ${manifest.limit}: ` +
      `${countsText(manifest.counts)} (--limit is not part of what the campaign is: the same ` +
      `content is the same campaign). Nothing was sent. --skip-sent-by ${manifest.id} sends ` +
      `the ${plural(skipped, 'record')} it left out as a campaign of its own; --resume takes ` +
      `this one on past its limit (--resume --limit N to N); --force sends it all again` +
      `${twice(accepted + unknown)}.`,
    'already-sent',
  );
  return leadingTo(error, {
    say: 'Send what the pilot left out',
    add: ['--skip-sent-by', manifest.id],
    drop: ['--force'],
  });
}

/**
 * The refusal of any run that would go on with a campaign another one sent the rest of
 * (--skip-sent-by): the campaign layer words it with how those campaigns stand.
 */
export class SupersededRefusal extends UsageError {
  constructor(
    readonly manifest: Manifest,
    readonly status: CampaignStatus,
  ) {
    const by = manifest.supersededBy ?? [];
    super(
      `campaign ${manifest.id} was ${verb(status)} on ${day(manifest)}, and campaign ` +
        `${by.join(', campaign ')} sent the rest of its content (--skip-sent-by ${manifest.id}): ` +
        'it is not continued, since its --resume, --once or retry would send their recipients ' +
        `the message again. Nothing was sent. --force sends it all again.`,
      'superseded',
    );
    leadingTo(this, {
      say: 'See how that campaign stands',
      args: ['campaigns', 'show', by.at(-1)!],
    });
  }
}

/**
 * The refusal of a campaign whose last run was killed, or stopped because its state could not be
 * written: counted from its journal and, once `fromReport` answers are taken into the journal from
 * the report (the way its --resume takes them), as that resume will find it.
 */
export class KilledRunRefusal extends UsageError {
  constructor(
    readonly manifest: Manifest,
    journal: JournalState,
    fromReport = 0,
  ) {
    super(unfinished(manifest, 'interrupted', journalCounts(journal), fromReport), 'unfinished');
    leadingTo(this, FINISH_IT);
  }
}

/** Why an unfinished campaign is refused: how it stands, and the two ways on. */
function unfinished(
  manifest: Manifest,
  status: CampaignStatus,
  settled: Record<string, number>,
  fromReport = 0,
): string {
  const report = manifest.reports.at(-1);
  const why = status === 'stopped' && manifest.reason ? ` (${manifest.reason})` : '';
  // A rehearsal's messages went to a simulator: starting it afresh sends nothing twice to a phone.
  const what = manifest.rehearsal ? 'rehearsal' : 'campaign';
  const force = manifest.rehearsal
    ? 'or --force to start the rehearsal afresh (its messages went to a simulator only)'
    : `or --force to send it all again${twice(sentOrMaybe(settled))}`;
  return (
    `${what} ${manifest.id} was ${status}${why} on ${day(manifest)}: ` +
    `${settledText(settled, fromReport)} of ${groupDigits(manifest.records)} records; ` +
    `report ${report ?? '(none)'}. ` +
    `Nothing was sent. Finish it with --resume (nothing settled is sent again), ${force}.`
  );
}

/** Counts by outcome, then the rows in flight: `850 accepted (200 of them only in the report, …), 150 sent without an answer`. */
function settledText(counts: Record<string, number>, fromReport: number): string {
  const part = (inFlight: boolean) => {
    const counted = Object.entries(counts).filter(
      ([what, n]) => IN_FLIGHT.has(what) === inFlight && n > 0,
    );
    return counted.length > 0 ? countsText(Object.fromEntries(counted)) : '';
  };
  const onlyInReport =
    fromReport > 0
      ? ` (${groupDigits(fromReport)} of them only in the report, where --resume takes them from)`
      : '';
  const settled = part(false);
  return (
    [settled && settled + onlyInReport, part(true)].filter(Boolean).join(', ') || NOTHING_SETTLED
  );
}

/** `, and 3,000 messages it sent or may have sent … would go twice`: what --force costs, said where it is offered. */
/** Records a campaign's counts say were accepted, or may have been: unknown, or in flight. */
function sentOrMaybe(counts: Record<string, number>): number {
  return ['accepted', 'unknown', SENT_NO_ANSWER, UNPOSTED].reduce(
    (n, k) => n + (counts[k] ?? 0),
    0,
  );
}

function twice(sent: number): string {
  return sent > 0
    ? `, and ${plural(sent, 'message')} it sent or may have sent (accepted or unknown) would go twice`
    : '';
}

const SENT_NO_ANSWER = 'sent without an answer';
const UNPOSTED = 'recorded, not known to have left';
const IN_FLIGHT = new Set([SENT_NO_ANSWER, UNPOSTED]);
const NOTHING_SETTLED = 'nothing settled';

/** Outcomes the journal recorded, and the rows in flight by what is known of them. */
function journalCounts(journal: JournalState): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of journal.results.outcomes()) counts[outcome] = (counts[outcome] ?? 0) + 1;
  const unposted = journal.unposted.size;
  const sent = journal.inFlight.size - unposted;
  if (sent > 0) counts[SENT_NO_ANSWER] = sent;
  if (unposted > 0) counts[UNPOSTED] = unposted;
  return counts;
}

function verb(status: CampaignStatus): string {
  return status === 'finished' ? 'sent' : status;
}

function day(manifest: Manifest): string {
  return (manifest.finishedAt ?? manifest.updatedAt).slice(0, 10);
}

/** "3,000 accepted, 100 failed": counts without the zeros. */
export function countsText(counts: Record<string, number>): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([outcome, n]) => `${groupDigits(n)} ${outcome}`);
  return parts.length ? parts.join(', ') : NOTHING_SETTLED;
}
