// Which delivery reports are believed: those carrying a valid proof for a message of the report's campaign.
import type { KeyObject } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../shared/errors.js';
import { dlrSecrets, secretPath } from '../journal/dlr-secret.js';
import { campaignPaths, readManifest } from '../journal/state.js';
import { checkProof } from '../shared/dlr-proof.js';
import { listIfExists } from '../shared/files.js';
import type { DeliveryReport } from './matching.js';

/** Why a report changed nothing. */
export const REFUSALS = ['unsigned', 'bad signature', 'unknown id', 'bad status'] as const;
export type ProofRefusal = (typeof REFUSALS)[number];

/** `signed: false`: taken without a proof, by --accept-unsigned. */
export type ProofVerdict = { ok: true; signed: boolean } | { ok: false; reason: ProofRefusal };

/** Decides whether a report may change the report; may read the state directory. */
export type Verify = (report: DeliveryReport) => ProofVerdict | Promise<ProofVerdict>;

/** What the gateway's statuses look like (DELIVRD, UNDELIV, delivered, BUFFERED, …). */
const STATUS = /^[A-Za-z][A-Za-z0-9_ -]{0,31}$/;
/** A campaign ID as a folder of the state directory may be named. */
const CAMPAIGN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** ProofRefusal counts, every reason present. */
export function noRefusals(): Record<ProofRefusal, number> {
  return Object.fromEntries(REFUSALS.map((r) => [r, 0])) as Record<ProofRefusal, number>;
}

export interface VerifierOptions {
  stateDir: string;
  reportPath: string;
  /** --accept-unsigned: reports without a proof are taken (campaigns sent before proofs). */
  acceptUnsigned?: boolean;
}

/**
 * Verifies delivery reports for one report: a proof made with one of the state directory's
 * secrets, for the report's MessageId and a campaign that wrote this report. Reports without a
 * proof are refused unless --accept-unsigned, which is refused itself for a report written by a
 * campaign sent with proofs. A proof is checked before anything is read, so forged requests cost
 * one HMAC each and no file access; the secrets are read again only when the file changed.
 */
export class DlrVerifier {
  /** Campaigns known to have written this report. */
  private readonly owners = new Set<string>();
  private written: { at: number; ids: Set<string> } | undefined;
  private secretStamp: string;
  private reloading: Promise<boolean> | undefined;

  private constructor(
    private readonly options: VerifierOptions,
    private keys: KeyObject[],
    stamp: string,
    /** Still taking unsigned reports: off once a campaign sent with proofs shows up. */
    private acceptUnsigned: boolean,
  ) {
    this.secretStamp = stamp;
  }

  /** Reads the secrets; throws UsageError when --accept-unsigned is not allowed for this report. */
  static async open(options: VerifierOptions): Promise<DlrVerifier> {
    const stamp = await secretStamp(options.stateDir);
    const keys = await dlrSecrets(options.stateDir);
    if (options.acceptUnsigned) await checkUnsignedAllowed(options);
    return new DlrVerifier(options, keys, stamp, options.acceptUnsigned === true);
  }

  /** Whether unsigned reports are (still) taken. */
  get acceptsUnsigned(): boolean {
    return this.acceptUnsigned;
  }

  readonly verify: Verify = (report) => {
    if (report.proof === undefined) {
      return this.acceptUnsigned ? statusVerdict(report, false) : refuse('unsigned');
    }
    const proof = checkProof(this.keys, report.proof, report.messageId);
    if (proof.ok) return this.ownedBy(proof.campaign, report);
    return this.retryWithNewSecrets(report);
  };

  /** A proof no key verifies: the secrets may have been made or rotated since they were read. */
  private async retryWithNewSecrets(report: DeliveryReport): Promise<ProofVerdict> {
    // One look at the secret at a time, shared by every report waiting on it.
    this.reloading ??= this.reloadSecrets().finally(() => (this.reloading = undefined));
    if (!(await this.reloading)) return refuse('bad signature');
    const proof = checkProof(this.keys, report.proof ?? '', report.messageId);
    return proof.ok ? this.ownedBy(proof.campaign, report) : refuse('bad signature');
  }

  /** Reads the secrets again when the current one changed; false when it did not. */
  private async reloadSecrets(): Promise<boolean> {
    const stamp = await secretStamp(this.options.stateDir);
    if (stamp === this.secretStamp) return false;
    this.keys = await dlrSecrets(this.options.stateDir);
    this.secretStamp = stamp;
    return true;
  }

  /**
   * A genuine proof: still, only for a message of a campaign that wrote this report. A report no
   * campaign of the state directory wrote (a copy, or one moved) takes any of its campaigns'
   * messages, matched by MessageId as ever.
   */
  private async ownedBy(campaign: string, report: DeliveryReport): Promise<ProofVerdict> {
    if (!this.owners.has(campaign)) {
      if (!CAMPAIGN_ID.test(campaign)) return refuse('unknown id');
      const manifest = await readManifest(
        campaignPaths(this.options.stateDir, campaign).manifest,
      ).catch(() => undefined);
      if (!manifest) return refuse('unknown id');
      if (manifest.reports.includes(resolve(this.options.reportPath))) {
        this.owners.add(campaign);
        // A campaign sent with proofs now writes this report: its reports need one.
        if (manifest.signedDlr) this.acceptUnsigned = false;
      } else if ((await this.writers()).size > 0) return refuse('unknown id');
    }
    return statusVerdict(report, true);
  }

  /** The campaigns that wrote this report; read again at most every few seconds. */
  private async writers(): Promise<Set<string>> {
    const now = Date.now();
    if (!this.written || now - this.written.at > WRITERS_TTL_MS) {
      this.written = { at: now, ids: await reportWriters(this.options) };
    }
    return this.written.ids;
  }
}

const WRITERS_TTL_MS = 5000;

/** The campaigns in the state directory whose manifest lists the report, with their manifests. */
async function reportWriters(options: VerifierOptions): Promise<Set<string>> {
  const path = resolve(options.reportPath);
  const ids = new Set<string>();
  for (const name of await listIfExists(resolve(options.stateDir, 'campaigns'))) {
    const manifest = await readManifest(campaignPaths(options.stateDir, name).manifest).catch(
      () => undefined,
    );
    if (manifest?.reports.includes(path)) ids.add(manifest.id);
  }
  return ids;
}

function refuse(reason: ProofRefusal): ProofVerdict {
  return { ok: false, reason };
}

function statusVerdict(report: DeliveryReport, signed: boolean): ProofVerdict {
  if (report.status !== undefined && !STATUS.test(report.status)) return refuse('bad status');
  return { ok: true, signed };
}

/** Identifies the current secret file's version: a rotation or a first send changes it. */
async function secretStamp(stateDir: string): Promise<string> {
  try {
    const info = await stat(secretPath(stateDir));
    return `${info.ino}:${info.mtimeMs}:${info.size}`;
  } catch {
    return 'none';
  }
}

/**
 * --accept-unsigned is for campaigns sent before proofs existed. It is refused when a campaign
 * sent with proofs wrote the report, and for a report that does not exist yet (a campaign about
 * to be sent is sent with proofs).
 */
async function checkUnsignedAllowed(options: VerifierOptions): Promise<void> {
  const path = resolve(options.reportPath);
  const exists = await stat(path).then(
    () => true,
    () => false,
  );
  if (!exists) {
    throw new UsageError(
      `--accept-unsigned is for the reports of campaigns sent before delivery reports carried proofs; ${options.reportPath} does not exist yet, and a campaign sent now is sent with them`,
    );
  }
  for (const name of await listIfExists(resolve(options.stateDir, 'campaigns'))) {
    const manifest = await readManifest(campaignPaths(options.stateDir, name).manifest).catch(
      () => undefined,
    );
    if (manifest?.signedDlr && manifest.reports.includes(path)) {
      throw new UsageError(
        `campaign ${manifest.id} wrote ${options.reportPath} with proofs in its DeliveryReportUrls: ` +
          'its delivery reports carry them, and unsigned ones are forged. Drop --accept-unsigned.',
      );
    }
  }
}
