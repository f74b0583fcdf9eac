// A campaign's relatives: recorded campaigns of other content that read one of its input paths or
// wrote its report, and its own content recorded in the other store (this host's state directory,
// when the run uses a state URL). A user who fixes a row, pilots a list or moves to the state URL
// changes the content's identity, not whom it was sent to: a relative that may have sent to this
// content's recipients is named, with what a --skip-sent-by of it would leave out.
import { resolve as resolvePath } from 'node:path';
import type { CampaignEntry, CampaignStore } from '../../journal/store.js';
import type { CampaignIdentity } from '../../journal/identity.js';
import { groupDigits, plural } from '../../shared/count.js';
import { leadingTo, UsageError } from '../../shared/errors.js';
import { exists } from '../../shared/files.js';
import { campaignMessages } from '../documents.js';
import type { CampaignRun } from '../run.js';
import type { Recorded, SentBy, Skipped } from './skip-sent.js';

/** A recorded campaign related to this run's, and why. */
export interface Relative {
  entry: CampaignEntry;
  store: CampaignStore;
  /** This run's input paths (resolved) it read too. */
  inputs: string[];
  /** It wrote the report this run would write, and that report is still there. */
  report: boolean;
  /** It is this very content, recorded in the other store (this host's state directory). */
  sameContent: boolean;
}

/**
 * The relatives of a campaign: every campaign of the stores this run sees, other than itself, not
 * a rehearsal (its messages went to a simulator), not linked to it or to a campaign --skip-sent-by
 * names (those leave out whom they sent to), and sharing an input path or the report.
 */
export async function findRelatives(
  run: CampaignRun,
  identity: CampaignIdentity,
  reportPath: string,
  skipping: readonly Skipped[],
  recorded: Recorded,
): Promise<Relative[]> {
  const inputs = new Set(run.inputs.filter((i) => i.label !== '-').map((i) => resolvePath(i.path)));
  const report = resolvePath(reportPath);
  // A report moved away (last night's, archived) is in nobody's way: its writer is named only if
  // it shares an input, and counted only if unfinished.
  const reportThere = await exists(report);
  const apart = await recorded.linked([identity.id, ...skipping.map((s) => s.entry.manifest.id)]);
  const excluded = new Set(apart.members.map((s) => s.entry.manifest.id));
  const found: Relative[] = [];
  for (const { entry, store } of await recorded.entries()) {
    const own = store === run.store;
    const m = entry.manifest;
    if ((own && m.id === identity.id) || m.rehearsal) continue;
    // This content recorded in the other store has this campaign's ID: it is a relative.
    if (excluded.has(m.id) && m.id !== identity.id) continue;
    const shared = m.inputs.map((i) => i.path).filter((path) => inputs.has(path));
    const wrote = reportThere && m.reports.includes(report);
    const sameContent = !own && m.contentHash === identity.contentHash;
    if (shared.length === 0 && !wrote && !sameContent) continue;
    found.push({ entry, store, inputs: shared, report: wrote, sameContent });
  }
  return found;
}

/**
 * Whether a relative's recipients are to be counted against this content: it wrote the report in
 * the way, it is this content in the other store, or it is unfinished (what it left, this run
 * would send again). A finished relative that only read the same path (last night's list at
 * tonight's path) is named, not read.
 */
export function mayRepeat(relative: Relative): boolean {
  return relative.report || relative.sameContent || relative.entry.status !== 'finished';
}

/**
 * Whom the relatives to count, each with the campaigns linked to it, may have sent to (their
 * journals, through their stores): every relative when a --resume found no run of this content
 * (each is named with its count).
 */
export async function readRelatives(
  relatives: readonly Relative[],
  resumedNothing: boolean,
  recorded: Recorded,
  options: { own: string; real: boolean; force: boolean },
): Promise<SentBy[]> {
  const lists: SentBy[] = [];
  for (const relative of relatives.filter((r) => resumedNothing || mayRepeat(r))) {
    const { id } = relative.entry.manifest;
    const sent = await recorded.sentBy(id, options.own, options.real);
    if (sent.unnamed > 0 && !options.force) throw unnamedRefusal(id, sent.unnamed);
    lists.push({ id, numbers: sent.numbers, linked: sent.linked });
  }
  return lists;
}

/**
 * A relative whose journal does not name the recipients of some records (an earlier sms-send
 * wrote it): how many of this content's it may have sent to cannot be counted, so nothing
 * offers to leave them out; --force is named with that price.
 */
function unnamedRefusal(id: string, unnamed: number): UsageError {
  return leadingTo(
    new UsageError(
      `campaign ${id}, related to this content, may have sent ${plural(unnamed, 'record')} whose ` +
        'recipients its journal does not name (an earlier sms-send wrote it): how many of this ' +
        "content's recipients already had the message cannot be told. Nothing was sent. --force " +
        'sends it all, to however many of them that was.',
      'recipients-unknown',
    ),
    { say: 'See how that campaign stands', args: ['campaigns', 'show', id] },
  );
}

/** What a refusal for relatives needs of the planned campaign. */
export interface RelatedPlan {
  relatives: readonly Relative[];
  /** --resume asked for, and no run of this content is recorded. */
  resumedNothing: boolean;
  /** Records to send, and of them those each relative may have sent to (by its ID). */
  valid: number;
  alreadySent: Readonly<Record<string, number>>;
  /** Whom the counted relatives may have sent to, with the campaigns linked to each. */
  seenBy: readonly SentBy[];
  hashes: readonly { sha256: string; bytes: number }[];
}

/**
 * The refusal (exit 2, nothing sent) of a run that would send to recipients a relative may have
 * sent to: its report is in the way, or it is this content in the other store, or it is
 * unfinished; or --resume found no run of this content. The first command it offers sends
 * nothing twice (--skip-sent-by); --force is named with the count it would send again.
 */
export async function relativesRefusal(
  run: CampaignRun,
  related: RelatedPlan,
): Promise<UsageError | undefined> {
  if (run.choices.force) return undefined;
  const blocking = related.relatives.filter((r) => {
    const repeats = related.alreadySent[r.entry.manifest.id] ?? 0;
    return r.report || related.resumedNothing || (mayRepeat(r) && repeats > 0);
  });
  if (blocking.length === 0) return undefined;
  const parts: string[] = [];
  for (const relative of blocking) parts.push(await relativeText(run, relative, related));
  const repeats = blocking.reduce((n, r) => n + (related.alreadySent[r.entry.manifest.id] ?? 0), 0);
  const rest = Math.max(0, related.valid - repeats);
  const message =
    `${related.resumedNothing ? 'nothing to resume: no run of this content is recorded. ' : ''}` +
    `${parts.join(' ')} Nothing was sent. --skip-sent-by sends this content as a campaign of its ` +
    `own without them (${plural(rest, 'record')}); --force sends all ${groupDigits(related.valid)}` +
    (repeats > 0
      ? `, ${groupDigits(repeats)} of them to recipients that may have had the message already.`
      : '.');
  const code = blocking.some((r) => r.report) ? 'report-exists' : 'already-sent';
  return leadingTo(new UsageError(message, code), {
    say: 'Send what they did not',
    drop: ['--resume', '--force', '--once'],
    add: blocking.flatMap((r) => ['--skip-sent-by', r.entry.manifest.id]),
  });
}

/** `campaign 94600b… (interrupted 2026-11-28: 700 accepted, …) read the same input …; …`. */
async function relativeText(
  run: CampaignRun,
  relative: Relative,
  related: RelatedPlan,
): Promise<string> {
  const m = relative.entry.manifest;
  const counts = await standing(relative);
  const why = [
    relative.sameContent ? `is this very content, recorded in ${relative.store.where}` : '',
    relative.inputs.length > 0 ? `read the same ${relative.inputs.join(', ')}` : '',
    relative.report ? `wrote the report ${m.reports.at(-1) ?? ''} this run would write` : '',
  ].filter(Boolean);
  const repeats = related.alreadySent[m.id] ?? 0;
  const linked = related.seenBy.find((s) => s.id === m.id)?.linked ?? [];
  const together =
    linked.length > 0
      ? ` (with campaign${linked.length === 1 ? '' : 's'} ${linked.join(', ')}, linked to it by ` +
        '--skip-sent-by or retry)'
      : '';
  return (
    `campaign ${m.id} (${relative.entry.status}, ${(m.finishedAt ?? m.updatedAt).slice(0, 10)}: ` +
    `${counts}) ${why.join(' and ')}; ${differs(run, relative, related)}` +
    (repeats > 0
      ? `, and ${plural(repeats, 'record')} of this one go to recipients it${together} accepted or may have sent to.`
      : '.')
  );
}

/** How a relative stands: accepted, unknown (or in flight), not sent; counted from its journal. */
async function standing({ entry, store }: Relative): Promise<string> {
  const detail = entry.status === 'finished' ? entry : await store.detail(entry).catch(() => entry);
  const c = detail.counts;
  const parts = [`${groupDigits(c.accepted)} accepted`];
  if (c.unknown > 0) parts.push(`${groupDigits(c.unknown)} unknown`);
  // Failed records never reached the gateway: not sent, as those no run took (a stop's skipped).
  const notSent = campaignMessages(detail) - c.accepted - c.rejected - c.unknown;
  if (notSent > 0) parts.push(`${groupDigits(notSent)} not sent`);
  return `${parts.join(', ')} of ${groupDigits(entry.manifest.records)}`;
}

/** What differs between the relative and this content: its files, or its settings. */
function differs(run: CampaignRun, relative: Relative, related: RelatedPlan): string {
  if (relative.sameContent) return 'it is the same content';
  const mine = new Map(
    run.inputs.map((input, i) => [resolvePath(input.path), related.hashes[i]!] as const),
  );
  const changed = relative.entry.manifest.inputs.filter((input) => {
    const now = mine.get(input.path);
    return now !== undefined && now.sha256 !== input.sha256;
  });
  if (changed.length === 0) {
    return (
      'this content differs from it by its settings, not its files (to go on with that campaign, ' +
      'run with exactly the settings it was started with, and --resume)'
    );
  }
  return `this content differs from it: ${changed
    .map((input) => {
      const now = mine.get(input.path)!;
      return `${input.path} changed since (${groupDigits(input.bytes)} bytes then, ${groupDigits(now.bytes)} now)`;
    })
    .join('; ')}`;
}

/**
 * The relatives that do not stop the run, named all the same: a finished campaign that read the
 * same input path (last night's list at tonight's path), which --skip-sent-by would leave out.
 */
export function relativeNotes(relatives: readonly Relative[]): string[] {
  return relatives
    .filter((r) => !mayRepeat(r))
    .map(({ entry }) => {
      const m = entry.manifest;
      return (
        `note: campaign ${m.id} (finished ${(m.finishedAt ?? m.updatedAt).slice(0, 10)}: ` +
        `${groupDigits(m.counts.accepted)} accepted of ${groupDigits(m.records)}) read the same ` +
        `input; this is other content, sent as its own campaign (--skip-sent-by ${m.id} would ` +
        'leave out whom it sent to)'
      );
    });
}
