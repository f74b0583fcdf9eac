// What a store remembers of a campaign besides its journal: the manifest, small and rewritten
// whole, and the rules by which a run starts and ends it, whatever the store.
import { UsageError } from '../shared/errors.js';
import type { PricePerSegment } from '../message/cost.js';
import type { Outcome } from '../message/outcome.js';
import type { CampaignShape } from './identity.js';

export type CampaignStatus = 'running' | 'interrupted' | 'stopped' | 'finished';

export interface Manifest {
  v: 1;
  id: string;
  /** True when the ID is a --campaign name rather than derived from the content. */
  named: boolean;
  contentHash: string;
  inputs: { path: string; sha256: string; bytes: number }[];
  /** "simulator" or the endpoint the messages went to. */
  target: string;
  /** Absolute report paths, one per run that wrote one; the last is the newest. */
  reports: string[];
  createdAt: string;
  startedAt: string;
  finishedAt?: string;
  updatedAt: string;
  status: CampaignStatus;
  runs: number;
  /** Records in the campaign (every input record, whatever its outcome). */
  records: number;
  counts: Record<Outcome, number>;
  /** Why a stopped run stopped (gateway unusable). */
  reason?: string;
  /**
   * How the messages were made from the inputs (mapping, template, defaults, country): what
   * `sms-send retry` rebuilds them with.
   */
  shape?: CampaignShape;
  /**
   * The suppression lists the campaign was sent with, as absolute paths (the shape holds only
   * their hashes): a follow-up applies them, as they read then, to what it re-sends.
   */
  suppress?: string[];
  /** Set on a follow-up campaign (`sms-send retry`): the campaign it re-sends records of. */
  followUp?: FollowUpOf;
  /**
   * The rest of the summary of the run that last ended or stopped (the counts are above): what a
   * --resume of a finished campaign answers with, without reading its journal or its inputs.
   * Absent while a first run goes.
   */
  summary?: ManifestSummary;
  /**
   * Every run went to sms-send's simulator (the built-in one, or one whose answers said so):
   * nothing reached a phone, and a real send of the same content is not refused for it.
   */
  rehearsal?: true;
  /** The prices the newest run estimated its cost with: the campaign's page prices it by them. */
  pricing?: Pricing;
  /**
   * The host of the newest run, which wrote the newest report: a report path names a file on
   * that host (every pod of a fleet may name the same path).
   */
  host?: string;
  /**
   * The --limit the newest run was sent with: not part of the campaign's identity, so a --resume
   * with another limit (or none) goes on to the records it left out.
   */
  limit?: number;
  /**
   * Campaigns that sent the rest of this one's content (--skip-sent-by named it), written into
   * this manifest under their hold on it as they started: it is not continued (--resume, --once,
   * retry), since that would send their recipients the message again, wherever they are recorded
   * and whether or not they are still there.
   */
  supersededBy?: string[];
}

/** A price per segment and the currency it is in, as the settings gave them to a run. */
export interface Pricing {
  pricePerSegment: PricePerSegment;
  currency?: string;
}

export interface ManifestSummary {
  /** StatusCode → count, with the first description seen for it. */
  byStatusCode: Record<string, { count: number; description: string }>;
  /** Skipped rows whose recipient is on a suppression list. */
  suppressed: number;
  /**
   * Skipped rows never to be sent (a suppression list, --dedupe, --limit, a follow-up), as against
   * those a stop left unsent: they are not messages, so every count of the campaign leaves them
   * out of its "of N messages". Absent in manifests written before it was kept.
   */
  notToSend?: number;
}

/** What a follow-up campaign re-sends: records of campaign `of` with these outcomes. */
export interface FollowUpOf {
  of: string;
  /** Besides failed and rejected: "unknown", "undelivered". */
  include: string[];
  /**
   * The rows it re-sends and each one's original MessageId: an interrupted follow-up is resumed
   * with exactly these, whatever the original's report says by then.
   */
  rows?: [row: number, messageId: string][];
}

export const MANIFEST_VERSION = 1;

/** What a run that starts gives its manifest; the rest comes from the runs before it. */
export type StartFields = Omit<Manifest, 'createdAt' | 'runs' | 'reports'> & { report: string };

/** What a run that ends gives its manifest. */
export type FinishFields = Pick<Manifest, 'status' | 'counts' | 'records' | 'summary'> & {
  reason?: string;
  /** This run went to a simulator: the campaign stays a rehearsal if every run did. */
  rehearsal?: boolean;
  /** When it ended (ISO 8601). */
  at: string;
};

/** A manifest as a store read it (`where` names it in a refusal): this sms-send's version only. */
export function parseManifest(text: string, where: string): Manifest {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch {
    throw new UsageError(`${where} is not valid JSON; nothing was sent`, 'state-corrupt');
  }
  if (manifest.v !== MANIFEST_VERSION) {
    throw new UsageError(
      `${where} was written by another version of sms-send (manifest version ${String(manifest.v)}); nothing was sent`,
      'state-version',
    );
  }
  return manifest;
}

/**
 * The manifest a run starts with: the earlier runs' creation time, run count and reports kept (its
 * own report last, once), and their prices when it was given none.
 */
export function startedManifest(previous: Manifest | undefined, fields: StartFields): Manifest {
  const { report, rehearsal, ...rest } = fields;
  return {
    ...(previous?.pricing ? { pricing: previous.pricing } : {}),
    ...rest,
    ...(rehearsal && rehearsedSoFar(previous) ? { rehearsal } : {}),
    createdAt: previous?.createdAt ?? rest.startedAt,
    runs: (previous?.runs ?? 0) + 1,
    reports: [...(previous?.reports ?? []).filter((r) => r !== report), report],
  };
}

/** The manifest as the run ends: its status, counts and reason; a rehearsal only if all were. */
export function finishedManifest(
  current: Manifest,
  { rehearsal, at, ...update }: FinishFields,
  previous: Manifest | undefined,
): Manifest {
  const next: Manifest = {
    ...current,
    ...update,
    updatedAt: at,
    ...(update.status === 'finished' ? { finishedAt: at } : {}),
  };
  if (update.reason === undefined) delete next.reason;
  // One run that reached a real gateway makes the campaign real for good.
  if (rehearsal && rehearsedSoFar(previous)) next.rehearsal = true;
  else delete next.rehearsal;
  return next;
}

/** No run of the campaign reached a real gateway (or none ran): it is still a rehearsal. */
export function rehearsedSoFar(previous: Manifest | undefined): boolean {
  return previous === undefined || previous.rehearsal === true;
}

/** The manifest told that campaign `by` sends the rest of its content (once, however often told). */
export function superseded(manifest: Manifest, by: string): Manifest {
  if (manifest.supersededBy?.includes(by)) return manifest;
  return { ...manifest, supersededBy: [...(manifest.supersededBy ?? []), by] };
}

/** The manifest with a report of its renamed (set aside): its rows stay its own. */
export function reportMoved(manifest: Manifest, from: string, to: string): Manifest {
  return { ...manifest, reports: manifest.reports.map((r) => (r === from ? to : r)) };
}
