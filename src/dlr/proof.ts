// Which delivery reports are believed: those carrying a valid proof for a message of the report's campaign.
import type { KeyObject } from 'node:crypto';
import { resolve } from 'node:path';
import type { CampaignStore } from '../journal/store.js';
import type { Clock } from '../shared/clock.js';
import { CANARY, checkProof } from '../shared/dlr-proof.js';
import type { DeliveryReport } from './matching.js';
import { campaignById } from '../journal/lookup.js';

/** Why a report changed nothing. */
export const REFUSALS = ['unsigned', 'bad signature', 'unknown id', 'bad status'] as const;
export type ProofRefusal = (typeof REFUSALS)[number];

/** A report believed names the campaign its proof was made for, when it carried one. */
export type ProofVerdict = { ok: true; campaign?: string } | { ok: false; reason: ProofRefusal };

/**
 * Decides whether a report may change the report; may read the campaign store, and rejects when
 * the store could not be read (nothing is decided: the report is to be sent again).
 */
export type Verify = (report: DeliveryReport) => ProofVerdict | Promise<ProofVerdict>;

/** What the gateway's statuses look like (DELIVRD, UNDELIV, delivered, BUFFERED, …). */
const STATUS = /^[A-Za-z][A-Za-z0-9_ -]{0,31}$/;
/** A campaign ID as the store may hold one. */
const CAMPAIGN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** ProofRefusal counts, every reason present. */
export function noRefusals(): Record<ProofRefusal, number> {
  return Object.fromEntries(REFUSALS.map((r) => [r, 0])) as Record<ProofRefusal, number>;
}

export interface VerifierOptions {
  store: CampaignStore;
  /** The report whose campaigns' reports are believed; without one, any campaign of the store's. */
  reportPath?: string;
  clock: Clock;
}

/**
 * Verifies delivery reports for one report: a proof made with one of the store's secrets, for the
 * report's MessageId and a campaign that wrote this report. A proof is checked before anything is
 * read, so a forged request costs one HMAC and no read of the store; the secrets are read again
 * only once their version changed (a first send made one, or a rotation a new one).
 */
export class DlrVerifier {
  /** Campaigns known to have written this report. */
  private readonly owners = new Set<string>();
  private written: { at: number; ids: Set<string> } | undefined;
  private reloading: Promise<boolean> | undefined;

  private constructor(
    private readonly options: VerifierOptions,
    private keys: KeyObject[],
    private version: string,
  ) {}

  static async open(options: VerifierOptions): Promise<DlrVerifier> {
    const { keys, version } = await options.store.dlrKeys();
    return new DlrVerifier(options, keys, version);
  }

  readonly verify: Verify = (report) => {
    if (report.proof === undefined) return refuse('unsigned');
    const proof = checkProof(this.keys, report.proof, report.messageId);
    if (proof.ok) return this.ownedBy(proof.campaign, report);
    return this.retryWithNewSecrets(report);
  };

  /** A proof no key verifies: the secrets may have been made or rotated since they were read. */
  private async retryWithNewSecrets(report: DeliveryReport): Promise<ProofVerdict> {
    // One read of the secrets at a time, shared by every report waiting on it.
    this.reloading ??= this.reloadSecrets().finally(() => (this.reloading = undefined));
    if (!(await this.reloading)) return refuse('bad signature');
    const proof = checkProof(this.keys, report.proof ?? '', report.messageId);
    return proof.ok ? this.ownedBy(proof.campaign, report) : refuse('bad signature');
  }

  /** Reads the secrets again when their version changed; false when it did not. */
  private async reloadSecrets(): Promise<boolean> {
    const { keys, version } = await this.options.store.dlrKeys();
    if (version === this.version) return false;
    this.keys = keys;
    this.version = version;
    return true;
  }

  /**
   * A genuine proof: still, only for a message of a campaign that wrote this report (or of a
   * canary, which belongs to none). A report no
   * campaign of the store wrote (a copy, or one moved) takes any of its campaigns' messages,
   * matched by MessageId as ever.
   */
  private async ownedBy(campaign: string, report: DeliveryReport): Promise<ProofVerdict> {
    // A canary's test message is no campaign's: its proof alone makes it believed.
    if (campaign !== CANARY && !this.owners.has(campaign)) {
      if (!CAMPAIGN_ID.test(campaign)) return refuse('unknown id');
      // A store that does not answer rejects: the receiver answers 500, and the gateway tries again.
      const entry = await campaignById(this.options.store, campaign);
      if (!entry) return refuse('unknown id');
      const { reportPath } = this.options;
      if (reportPath === undefined || entry.manifest.reports.includes(resolve(reportPath))) {
        this.owners.add(campaign);
      } else if ((await this.writers(reportPath)).size > 0) return refuse('unknown id');
    }
    return statusVerdict(report, campaign);
  }

  /** The campaigns that wrote this report; read again at most every WRITERS_TTL_MS. */
  private async writers(reportPath: string): Promise<Set<string>> {
    const now = this.options.clock.now();
    if (!this.written || now - this.written.at > WRITERS_TTL_MS) {
      const path = resolve(reportPath);
      const entries = await this.options.store.campaigns();
      const ids = entries
        .filter((e) => e.manifest.reports.includes(path))
        .map((e) => e.manifest.id);
      this.written = { at: now, ids: new Set(ids) };
    }
    return this.written.ids;
  }
}

const WRITERS_TTL_MS = 5000;

function refuse(reason: ProofRefusal): ProofVerdict {
  return { ok: false, reason };
}

function statusVerdict(report: DeliveryReport, campaign: string): ProofVerdict {
  if (report.status !== undefined && !STATUS.test(report.status)) return refuse('bad status');
  return { ok: true, campaign };
}
