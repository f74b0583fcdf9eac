// The state directory as a campaign store: one folder per campaign with its manifest, journal and
// lock, the delivery-report secret beside them (docs/campaign-state.md#state-directory).
import type { KeyObject } from 'node:crypto';
import type { RowResult } from '../message/outcome.js';
import {
  claimCampaign,
  inspectCampaign,
  type Claim,
  type ClaimOptions,
  type Inspected,
} from './claim.js';
import { dlrSecrets, dlrSecretsVersion, loadDlrSecret } from './dlr-secret.js';
import { InputDigests } from './input-digests.js';
import { acquireLock } from './lock.js';
import { moveReportAside, rehearsalOf } from './rehearsal.js';
import { recordConfirmed } from './settle.js';
import { sentFromFolder, type SentTo } from './sent.js';
import {
  campaignDetail,
  campaignEntry,
  campaignPaths,
  findCampaign,
  listCampaigns,
  markSuperseded,
  pruneCampaigns,
  stateDirProblem,
  type CampaignDetail,
  type CampaignEntry,
} from './state.js';
import type { CampaignStore, Held } from './store.js';
import type { UsageError } from '../shared/errors.js';

export class FolderStore implements CampaignStore {
  constructor(readonly stateDir: string) {}

  get where(): string {
    return this.stateDir;
  }

  problem(): Promise<UsageError | undefined> {
    return stateDirProblem(this.stateDir);
  }

  claim(options: ClaimOptions): Promise<Claim> {
    return claimCampaign(this.stateDir, options);
  }

  inspect(options: ClaimOptions): Promise<Inspected> {
    return inspectCampaign(this.stateDir, options);
  }

  async hold(id: string, what: string): Promise<Held> {
    const lock = await acquireLock(campaignPaths(this.stateDir, id).lock, what);
    return {
      release: () => lock.release(),
      moveReport: (report) => moveReportAside(this.stateDir, id, report),
      supersede: (by) => markSuperseded(this.stateDir, id, by),
    };
  }

  list(): Promise<CampaignEntry[]> {
    return listCampaigns(this.stateDir);
  }

  campaign(id: string): Promise<CampaignEntry | undefined> {
    return campaignEntry(this.stateDir, id);
  }

  find(id: string): Promise<CampaignEntry> {
    return findCampaign(this.stateDir, id);
  }

  detail(entry: CampaignEntry): Promise<CampaignDetail> {
    return campaignDetail(this.stateDir, entry);
  }

  sentTo(id: string): Promise<SentTo> {
    return sentFromFolder(campaignPaths(this.stateDir, id).dir);
  }

  prune(before: Date): Promise<string[]> {
    return pruneCampaigns(this.stateDir, before);
  }

  rehearsalOf(report: string): Promise<CampaignEntry | undefined> {
    return rehearsalOf(this.stateDir, report);
  }

  dlrSecret(): Promise<KeyObject> {
    return loadDlrSecret(this.stateDir);
  }

  dlrSecrets(): Promise<KeyObject[]> {
    return dlrSecrets(this.stateDir);
  }

  dlrSecretsVersion(): Promise<string> {
    return dlrSecretsVersion(this.stateDir);
  }

  recordConfirmed(report: string, rows: readonly RowResult[]): Promise<string | undefined> {
    return recordConfirmed(this.stateDir, report, rows);
  }

  inputDigests(): Promise<InputDigests> {
    return InputDigests.open(this.stateDir);
  }

  localFolder(id: string): string {
    return campaignPaths(this.stateDir, id).dir;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
