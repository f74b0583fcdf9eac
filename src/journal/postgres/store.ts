// Campaign state in PostgreSQL, for jobs that run on more than one host: the same store as the
// state directory (store.ts), every host seeing every campaign. This host keeps only a cache: the
// spool a resume may reuse, the run's timeline, the inputs' digests, readings of a journal.
import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RowResult } from '../../message/outcome.js';
import { systemClock } from '../../shared/clock.js';
import { unsentStateError, UsageError } from '../../shared/errors.js';
import { maskUrl } from '../../shared/url.js';
import type { Claim, ClaimOptions, Inspected, LocalFiles } from '../claim.js';
import { InputDigests } from '../input-digests.js';
import { resultLine } from '../journal.js';
import type { SentTo } from '../sent.js';
import {
  localFilesIn,
  outcomeCounts,
  pickCampaign,
  type CampaignDetail,
  type CampaignEntry,
  type CampaignStatus,
  type Manifest,
} from '../state.js';
import type { CampaignStore, Held } from '../store.js';
import { claimInDatabase, inspectInDatabase } from './claim.js';
import type { ClaimPlace } from './place.js';
import { Database } from './connect.js';
import { databaseError, guarded } from './failures.js';
import { readDatabaseJournal, removeReadings, sentFromDatabase } from './journal.js';
import { goneFromHere, Lease, takeLease } from './lease.js';
import { markSuperseded, moveReportAside } from './rehearsal.js';
import { ensureSchema } from './schema.js';

export interface DatabaseSettings {
  stateUrl: string;
  /** This host's cache: `<stateDir>/cache/<campaign>`. */
  stateDir: string;
  leaseMs: number;
}

interface CampaignRow {
  id: string;
  manifest: Manifest;
  host: string | null;
  holder: string | null;
  live: boolean;
  lease_until: Date | null;
  generation: number;
}

const SECRET_BYTES = 32;

export class DatabaseStore implements CampaignStore {
  readonly where: string;
  private opened: Promise<Database> | undefined;
  private closed = false;
  /** This host's folders a look or a show read a campaign's journal into. */
  private readonly readInto = new Set<string>();

  constructor(private readonly settings: DatabaseSettings) {
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
    const db = await this.database();
    return {
      db,
      where: this.where,
      leaseMs: this.settings.leaseMs,
      program: 'sms-send',
      local: (id) => this.localFiles(id),
      list: () => this.list(),
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
    this.readInto.add(this.localFolder(options.identity.id));
    return this.using(async () => {
      try {
        return await inspectInDatabase(await this.place(), options);
      } catch (error) {
        if (error instanceof UsageError) return { refusal: error };
        throw error;
      }
    });
  }

  hold(id: string, what: string): Promise<Held> {
    return this.using(async (db) => {
      const taken = await db.transaction((tx) => takeLease(tx, id, this.settings.leaseMs, what));
      const lease = new Lease(db, id, taken.fence, this.settings.leaseMs);
      return {
        release: () => guarded(db, () => lease.release()),
        moveReport: (report) => guarded(db, () => moveReportAside(db, lease, report)),
        supersede: (by) => guarded(db, () => markSuperseded(db, lease, by)),
      };
    });
  }

  list(): Promise<CampaignEntry[]> {
    return this.using(async (db) => {
      const result = await db.query<CampaignRow>(
        `SELECT id, manifest, host, holder, lease_until, generation, (holder IS NOT NULL AND lease_until > now()) AS live
           FROM sms_send.campaigns WHERE manifest IS NOT NULL`,
      );
      return result.rows
        .map((row) => this.entryOf(row))
        .sort((a, b) => (a.manifest.startedAt < b.manifest.startedAt ? 1 : -1));
    });
  }

  campaign(id: string): Promise<CampaignEntry | undefined> {
    return this.using(async (db) => {
      const result = await db.query<CampaignRow>(
        `SELECT id, manifest, host, holder, lease_until, generation, (holder IS NOT NULL AND lease_until > now()) AS live
           FROM sms_send.campaigns WHERE id = $1 AND manifest IS NOT NULL`,
        [id],
      );
      return result.rows[0] && this.entryOf(result.rows[0]);
    });
  }

  private entryOf(row: CampaignRow): CampaignEntry {
    const { manifest } = row;
    // A campaign marked running whose lease no one renews was killed: it is interrupted; so is
    // one whose run on this host is gone, though its lease still keeps other runs out.
    const gone = row.live && goneFromHere(row.holder);
    const status: CampaignStatus =
      manifest.status === 'running' && (!row.live || gone) ? 'interrupted' : manifest.status;
    return {
      manifest,
      status,
      where: `${this.where} (campaign ${row.id})`,
      localDir: this.localFolder(row.id),
      counts: manifest.counts,
      ...(row.host === null ? {} : { host: row.host }),
      ...(gone && row.lease_until ? { goneUntil: row.lease_until.toISOString() } : {}),
    };
  }

  async find(id: string): Promise<CampaignEntry> {
    return pickCampaign(await this.list(), id, this.where);
  }

  detail(entry: CampaignEntry): Promise<CampaignDetail> {
    return this.using(async (db) => {
      const id = entry.manifest.id;
      const found = await db.query<{ journals: string; bytes: string; generation: number }>(
        `SELECT count(DISTINCT j.generation)::text AS journals,
                coalesce(sum(octet_length(j.line) + 1), 0)::text AS bytes, c.generation
           FROM sms_send.campaigns c
           LEFT JOIN sms_send.journal j ON j.campaign = c.id AND j.generation < c.generation
          WHERE c.id = $1 GROUP BY c.generation`,
        [id],
      );
      const row = found.rows[0];
      const setAside = { journals: Number(row?.journals ?? 0), bytes: Number(row?.bytes ?? 0) };
      if (!row || (entry.status !== 'running' && entry.status !== 'interrupted')) {
        return { ...entry, countedFromJournal: false, setAside };
      }
      this.readInto.add(entry.localDir);
      const journal = await readDatabaseJournal(db, id, row.generation, entry.localDir).catch(
        () => undefined,
      );
      if (!journal) return { ...entry, countedFromJournal: false, setAside };
      const counts = outcomeCounts(journal);
      return { ...entry, counts, countedFromJournal: true, journal, setAside };
    });
  }

  sentTo(id: string): Promise<SentTo> {
    return this.using((db) => sentFromDatabase(db, id));
  }

  prune(before: Date): Promise<string[]> {
    return this.using(async (db) => {
      const result = await db.query<{ id: string }>(
        `DELETE FROM sms_send.campaigns
          WHERE manifest->>'status' = 'finished'
            AND coalesce(manifest->>'finishedAt', manifest->>'updatedAt')::timestamptz < $1
            AND NOT (holder IS NOT NULL AND lease_until > now())
          RETURNING id`,
        [before.toISOString()],
      );
      const removed = result.rows.map((row) => row.id).sort();
      for (const id of removed) {
        await rm(this.localFolder(id), { recursive: true, force: true });
      }
      return removed;
    });
  }

  async rehearsalOf(report: string): Promise<CampaignEntry | undefined> {
    const path = resolve(report);
    return (await this.list()).find(
      (e) => e.manifest.rehearsal === true && e.manifest.reports.includes(path),
    );
  }

  dlrSecret(): Promise<KeyObject> {
    return this.using(async (db) => {
      // Two runs making the first secret at once: one insert wins, both read the same.
      await db.query(
        'INSERT INTO sms_send.secrets (key) SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM sms_send.secrets WHERE retired_at IS NULL) ON CONFLICT DO NOTHING',
        [randomBytes(SECRET_BYTES)],
      );
      const result = await db.query<{ key: Buffer }>(
        'SELECT key FROM sms_send.secrets WHERE retired_at IS NULL',
      );
      return createSecretKey(result.rows[0]!.key);
    });
  }

  dlrSecrets(): Promise<KeyObject[]> {
    return this.using(async (db) => {
      const result = await db.query<{ key: Buffer }>(
        'SELECT key FROM sms_send.secrets ORDER BY retired_at IS NOT NULL, id DESC',
      );
      return result.rows.map((row) => createSecretKey(row.key));
    });
  }

  dlrSecretsVersion(): Promise<string> {
    return this.using(async (db) => {
      const result = await db.query<{ version: string }>(
        "SELECT count(*) || ':' || coalesce(max(id), 0) || ':' || count(retired_at) AS version FROM sms_send.secrets",
      );
      return result.rows[0]!.version;
    });
  }

  recordConfirmed(report: string, rows: readonly RowResult[]): Promise<string | undefined> {
    return this.using(async (db) => {
      if (rows.length === 0) return undefined;
      const path = resolve(report);
      const entry = (await this.list()).find((e) => e.manifest.reports.at(-1) === path);
      if (!entry) return undefined;
      const id = entry.manifest.id;
      return db.transaction(async (client) => {
        const found = await client.query<{ manifest: Manifest; generation: number; live: boolean }>(
          `SELECT manifest, generation, (holder IS NOT NULL AND lease_until > now()) AS live
             FROM sms_send.campaigns WHERE id = $1 FOR UPDATE`,
          [id],
        );
        const row = found.rows[0];
        // A run holds the campaign: it writes the report and its state; nothing is changed here.
        if (!row || row.live) return undefined;
        const state = await readDatabaseJournal(client, id, row.generation, this.localFolder(id));
        const open = rows.filter((r) => {
          const outcome = state?.results.outcome(r.row);
          return outcome === 'unknown' || (outcome === undefined && state?.inFlight.has(r.row));
        });
        if (open.length === 0) return id;
        await client.query(
          'INSERT INTO sms_send.journal (campaign, generation, line) VALUES ($1, $2, $3)',
          [id, row.generation, JSON.stringify(resultLine('dlr', open))],
        );
        const manifest = row.manifest;
        const moved = Math.min(open.length, manifest.counts.unknown);
        const counts = {
          ...manifest.counts,
          unknown: manifest.counts.unknown - moved,
          accepted: manifest.counts.accepted + moved,
        };
        await client.query('UPDATE sms_send.campaigns SET manifest = $2::jsonb WHERE id = $1', [
          id,
          JSON.stringify({
            ...manifest,
            counts,
            updatedAt: new Date(systemClock.now()).toISOString(),
          }),
        ]);
        return id;
      });
    });
  }

  inputDigests(): Promise<InputDigests> {
    return InputDigests.open(this.settings.stateDir);
  }

  localFolder(id: string): string {
    return join(this.settings.stateDir, 'cache', id);
  }

  private localFiles(id: string): LocalFiles {
    return localFilesIn(this.localFolder(id));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // What a look or a show read the journal into is of no use once the command is done.
    for (const dir of this.readInto) await removeReadings(dir);
    const opened = this.opened;
    if (!opened) return;
    const db = await opened.catch(() => undefined);
    await db?.end();
  }
}
