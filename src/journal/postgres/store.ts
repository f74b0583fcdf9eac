// Campaign state in PostgreSQL, for jobs that run on more than one host: the same store as the
// state directory (store.ts), every host seeing every campaign. What a run keeps on its own host
// (its spool, its timeline, readings of a journal) is the host cache's (cache.ts).
import { createSecretKey } from 'node:crypto';
import { resolve } from 'node:path';
import type { RowResult } from '../../message/outcome.js';
import { systemClock } from '../../shared/clock.js';
import { unsentStateError, UsageError } from '../../shared/errors.js';
import { maskUrl } from '../../shared/url.js';
import type { HostCache } from '../cache.js';
import type { ClaimOptions } from '../decide.js';
import { newKeyBytes } from '../dlr-keys.js';
import { resultLine } from '../lines.js';
import type { CampaignStatus, Manifest } from '../manifest.js';
import { outcomeCounts } from '../reading.js';
import type { SentTo } from '../sent.js';
import {
  countedFromJournal,
  type CampaignDetail,
  type CampaignEntry,
  type CampaignStore,
  type Claim,
  type DeliveryShelf,
  type DlrKeys,
  type Held,
  type Inspected,
  type PruneOptions,
  type ReportCopy,
  type RunRecord,
  type StoredDelivery,
} from '../store.js';
import { claimInDatabase, inspectInDatabase } from './claim.js';
import { Database } from './connect.js';
import { databaseError, guarded } from './failures.js';
import { readDatabaseJournal, sentFromDatabase } from './journal.js';
import { goneFromHere, Lease, takeCampaign } from './lease.js';
import type { ClaimPlace } from './place.js';
import { markSuperseded, moveReportAside } from './rehearsal.js';
import { reportCopyOf } from './report-copy.js';
import { ensureSchema } from './schema.js';
import { addCanaryReport } from './sql/add-canary-report.js';
import { addDelivery } from './sql/add-delivery.js';
import { canaryReports } from './sql/canary-reports.js';
import { appendUnheld } from './sql/append-unheld.js';
import { DELIVERY_PAGE, deliveryPage } from './sql/delivery-page.js';
import { listCampaigns, type CampaignRow } from './sql/list-campaigns.js';
import { lockUnheld } from './sql/lock-unheld.js';
import { makeDlrKey } from './sql/make-dlr-key.js';
import { pruneCampaigns } from './sql/prune-campaigns.js';
import { readDlrKeys } from './sql/read-dlr-keys.js';
import { readRuns } from './sql/read-runs.js';
import { setAsideJournals } from './sql/set-aside-journals.js';
import { writeUnheldManifest } from './sql/write-unheld-manifest.js';

export interface DatabaseSettings {
  stateUrl: string;
  leaseMs: number;
}

export class DatabaseStore implements CampaignStore {
  readonly where: string;
  private opened: Promise<Database> | undefined;
  private closed = false;

  constructor(
    private readonly settings: DatabaseSettings,
    private readonly cache: HostCache,
  ) {
    this.where = maskUrl(settings.stateUrl);
  }

  /** The database, connected and its schema made, once; a failure says what it means (exit 2 or 6). */
  private database(): Promise<Database> {
    this.opened ??= (async () => {
      const db = await Database.open(this.settings.stateUrl, this.settings.leaseMs);
      try {
        await ensureSchema(db);
      } catch (error) {
        const named = await databaseError(error, db);
        await db.end();
        throw named;
      }
      return db;
    })();
    return this.opened;
  }

  /** `work` on the database, its failures named as the database's (this host's stay its own). */
  private async using<T>(work: (db: Database) => Promise<T>): Promise<T> {
    const db = await this.database();
    return guarded(db, () => work(db));
  }

  private async place(): Promise<ClaimPlace> {
    return {
      db: await this.database(),
      where: this.where,
      leaseMs: this.settings.leaseMs,
      cache: this.cache,
      campaigns: () => this.campaigns(),
    };
  }

  async problem(): Promise<UsageError | undefined> {
    try {
      await this.database();
      return undefined;
    } catch (error) {
      const refusal = unsentStateError(error) ?? error;
      if (refusal instanceof UsageError) return refusal;
      throw refusal;
    }
  }

  async claim(options: ClaimOptions): Promise<Claim> {
    const place = await this.place();
    return guarded(place.db, () => claimInDatabase(place, options));
  }

  inspect(options: ClaimOptions): Promise<Inspected> {
    return this.using(async () => {
      try {
        return await inspectInDatabase(await this.place(), options);
      } catch (error) {
        if (error instanceof UsageError) return { refusal: error, found: NOTHING_FOUND };
        throw error;
      }
    });
  }

  hold(id: string, what: string): Promise<Held> {
    return this.using(async (db) => {
      const taken = await db.transaction((tx) => takeCampaign(tx, id, this.settings.leaseMs, what));
      const lease = new Lease(db, id, taken.fence, this.settings.leaseMs);
      return {
        release: () => guarded(db, () => lease.release()),
        moveReport: (report) => guarded(db, () => moveReportAside(db, lease, report)),
        supersede: (by) => guarded(db, () => markSuperseded(db, lease, by)),
      };
    });
  }

  campaigns(query?: { id: string }): Promise<CampaignEntry[]> {
    return this.using(async (db) => {
      const rows = await listCampaigns(db, query?.id);
      return rows
        .map((row) => this.entryOf(row))
        .sort((a, b) => (a.manifest.startedAt < b.manifest.startedAt ? 1 : -1));
    });
  }

  private entryOf(row: CampaignRow): CampaignEntry {
    const manifest = row.manifest as Manifest;
    // A campaign marked running whose lease no one renews was killed: it is interrupted; so is
    // one whose run on this host is gone, though its lease still keeps other runs out.
    const gone = row.live && goneFromHere(row.holder);
    const status: CampaignStatus =
      manifest.status === 'running' && (!row.live || gone) ? 'interrupted' : manifest.status;
    return {
      manifest,
      status,
      where: `${this.where} (campaign ${row.id})`,
      counts: manifest.counts,
      ...(row.host === null ? {} : { host: row.host }),
      ...(gone && row.lease_until ? { goneUntil: row.lease_until.toISOString() } : {}),
    };
  }

  detail(entry: CampaignEntry): Promise<CampaignDetail> {
    return this.using(async (db) => {
      const id = entry.manifest.id;
      const found = await setAsideJournals(db, id);
      const setAside = { journals: found?.journals ?? 0, bytes: found?.bytes ?? 0 };
      if (!found || !countedFromJournal(entry)) {
        return { ...entry, countedFromJournal: false, setAside };
      }
      const journal = await readDatabaseJournal(db, id, found.generation, () =>
        this.cache.reading(id),
      ).catch(() => undefined);
      if (!journal) return { ...entry, countedFromJournal: false, setAside };
      const counts = outcomeCounts(journal);
      return { ...entry, counts, countedFromJournal: true, journal, setAside };
    });
  }

  sentTo(id: string): Promise<SentTo> {
    return this.using((db) => sentFromDatabase(db, id));
  }

  prune(before: Date, options?: PruneOptions): Promise<string[]> {
    return this.using((db) => pruneCampaigns(db, before, options));
  }

  dlrKeys(make = false): Promise<DlrKeys> {
    return this.using(async (db) => {
      if (make) await makeDlrKey(db, newKeyBytes());
      const { keys, version } = await readDlrKeys(db);
      return { keys: keys.map((key) => createSecretKey(key)), version };
    });
  }

  runs(id: string): Promise<RunRecord[]> {
    return this.using(async (db) => {
      const rows = await readRuns(db, id);
      return rows.map(({ key, host, record }) => ({ key, host, data: record }));
    });
  }

  recordConfirmed(report: string, rows: readonly RowResult[]): Promise<string | undefined> {
    return this.using(async (db) => {
      if (rows.length === 0) return undefined;
      const path = resolve(report);
      const entry = (await this.campaigns()).find((e) => e.manifest.reports.at(-1) === path);
      if (!entry) return undefined;
      const id = entry.manifest.id;
      return db.transaction(async (tx) => {
        const row = await lockUnheld(tx, id);
        // A run holds the campaign: it writes the report and its state; nothing is changed here.
        if (!row || row.live) return undefined;
        const state = await readDatabaseJournal(tx, id, row.generation, () =>
          this.cache.reading(id),
        );
        const open = rows.filter((r) => {
          const outcome = state?.results.outcome(r.row);
          return outcome === 'unknown' || (outcome === undefined && state?.inFlight.has(r.row));
        });
        if (open.length === 0) return id;
        if (!(await appendUnheld(tx, id, JSON.stringify(resultLine('dlr', open)))))
          return undefined;
        const manifest = row.manifest as Manifest;
        const moved = Math.min(open.length, manifest.counts.unknown);
        const counts = {
          ...manifest.counts,
          unknown: manifest.counts.unknown - moved,
          accepted: manifest.counts.accepted + moved,
        };
        const updatedAt = new Date(systemClock.now()).toISOString();
        await writeUnheldManifest(tx, id, manifest, { ...manifest, counts, updatedAt });
        return id;
      });
    });
  }

  readonly deliveries: DeliveryShelf = {
    add: (campaign, report) => this.using((db) => addDelivery(db, campaign, report)),
    read: (campaign) => this.readDeliveries(campaign),
    addCanary: (report) => this.using((db) => addCanaryReport(db, report)),
    canary: (messageId) =>
      this.using(async (db) =>
        (await canaryReports(db, messageId)).map((row) => ({
          messageId,
          status: row.status,
          timestamp: row.timestamp === '' ? undefined : row.timestamp,
          transactionId: undefined,
          receivedAt: row.received_at,
        })),
      ),
  };

  reportCopy(id: string): Promise<ReportCopy | undefined> {
    return this.using((db) => reportCopyOf(db, id));
  }

  private async *readDeliveries(campaign: string): AsyncGenerator<StoredDelivery> {
    let after = '0';
    for (;;) {
      const page = await this.using((db) => deliveryPage(db, campaign, after));
      for (const row of page) {
        yield {
          messageId: row.message_id,
          status: row.status,
          timestamp: row.timestamp === '' ? undefined : row.timestamp,
          transactionId: row.transaction_id ?? undefined,
          receivedAt: row.received_at,
        };
      }
      const last = page.at(-1);
      if (last === undefined || page.length < DELIVERY_PAGE) return;
      after = last.seq;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const opened = this.opened;
    if (!opened) return;
    const db = await opened.catch(() => undefined);
    await db?.end();
  }
}

const NOTHING_FOUND = { finished: false, done: false } as const;
