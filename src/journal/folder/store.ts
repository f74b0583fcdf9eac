// The state directory as a campaign store: one folder per campaign with its manifest, journal and
// lock, the delivery-report keys beside them (docs/campaign-state.md#state-directory).
import type { RowResult } from '../../message/outcome.js';
import type { UsageError } from '../../shared/errors.js';
import type { HostCache } from '../cache.js';
import type { ClaimOptions } from '../decide.js';
import { acquireLock } from '../lock.js';
import type { SentTo } from '../sent.js';
import type {
  CampaignDetail,
  CampaignEntry,
  CampaignStore,
  Claim,
  DlrKeys,
  Held,
  Inspected,
  PruneOptions,
  RunRecord,
} from '../store.js';
import {
  campaignDetail,
  campaignEntry,
  campaignPaths,
  listCampaigns,
  markSuperseded,
  pruneCampaigns,
  stateDirProblem,
} from './campaigns.js';
import { claimCampaign, inspectCampaign } from './claim.js';
import { recordConfirmed } from './confirmed.js';
import { folderDlrKeys } from './dlr-keys.js';
import { moveReportAside } from './rehearsal.js';
import { readRuns } from './runs.js';
import { sentFromFolder } from './sent.js';

export class FolderStore implements CampaignStore {
  constructor(
    readonly stateDir: string,
    private readonly cache: HostCache,
  ) {}

  get where(): string {
    return this.stateDir;
  }

  problem(): Promise<UsageError | undefined> {
    return stateDirProblem(this.stateDir);
  }

  claim(options: ClaimOptions): Promise<Claim> {
    return claimCampaign({ stateDir: this.stateDir, cache: this.cache }, options);
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

  async campaigns(query?: { id: string }): Promise<CampaignEntry[]> {
    if (query === undefined) return listCampaigns(this.stateDir);
    const entry = await campaignEntry(this.stateDir, query.id);
    return entry ? [entry] : [];
  }

  detail(entry: CampaignEntry): Promise<CampaignDetail> {
    return campaignDetail(this.stateDir, entry);
  }

  sentTo(id: string): Promise<SentTo> {
    return sentFromFolder(campaignPaths(this.stateDir, id).dir);
  }

  prune(before: Date, options?: PruneOptions): Promise<string[]> {
    return pruneCampaigns(this.stateDir, before, options);
  }

  dlrKeys(make?: boolean): Promise<DlrKeys> {
    return folderDlrKeys(this.stateDir, make);
  }

  runs(id: string): Promise<RunRecord[]> {
    return readRuns(campaignPaths(this.stateDir, id).runs);
  }

  recordConfirmed(report: string, rows: readonly RowResult[]): Promise<string | undefined> {
    return recordConfirmed(this.stateDir, report, rows);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
