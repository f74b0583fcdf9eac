// A rehearsal set aside in the database: the finished rehearsal's manifest and journal move to a
// campaign of their own, `<id>-rehearsal-N`, as the state directory moves its folder; a report a
// rehearsal wrote where the new run writes its own is renamed, and its campaign told so.
import { resolve } from 'node:path';
import { renameFile } from '../../shared/disk.js';
import { asideName, rehearsalReportName } from '../rehearsal.js';
import type { Manifest } from '../state.js';
import { HoldLostError } from '../store.js';
import type { Database } from './connect.js';
import type { ClaimPlace } from './place.js';
import type { Lease } from './lease.js';

/** Moves the rehearsal under a name of its own, leaving the campaign held and empty; its new ID. */
export async function setAsideRehearsal(
  db: Database,
  lease: Lease,
  manifest: Manifest,
): Promise<string> {
  return db.transaction(async (client) => {
    const held = await client.query(
      'SELECT 1 FROM sms_send.campaigns WHERE id = $1 AND fence = $2::bigint FOR UPDATE',
      [lease.id, lease.fence],
    );
    if (held.rowCount === 0) throw new HoldLostError(lease.id);
    let id = '';
    for (let n = 1; ; n++) {
      id = `${manifest.id}-rehearsal-${n}`;
      const taken = await client.query('SELECT 1 FROM sms_send.campaigns WHERE id = $1', [id]);
      if (taken.rowCount === 0) break;
    }
    await client.query(
      `INSERT INTO sms_send.campaigns (id, manifest, generation, host)
       SELECT $2, $3::jsonb, generation, host FROM sms_send.campaigns WHERE id = $1`,
      [lease.id, id, JSON.stringify({ ...manifest, id })],
    );
    await client.query('UPDATE sms_send.journal SET campaign = $2 WHERE campaign = $1', [
      lease.id,
      id,
    ]);
    await client.query('UPDATE sms_send.campaigns SET manifest = NULL WHERE id = $1', [lease.id]);
    return id;
  });
}

/**
 * The report a rehearsal wrote, renamed `<name>.rehearsal.<ext>` (or `.rehearsal-2` …), and its
 * campaign's manifest told so; undefined when no rehearsal wrote it.
 */
export async function moveRehearsalReport(
  place: ClaimPlace,
  report: string,
): Promise<string | undefined> {
  const path = resolve(report);
  const owner = (await place.list()).find(
    (e) => e.manifest.rehearsal === true && e.manifest.reports.includes(path),
  );
  if (!owner) return undefined;
  const moved = await rehearsalReportName(path);
  await renameFile(path, moved);
  const reports = owner.manifest.reports.map((r) => (r === path ? moved : r));
  await place.db.query('UPDATE sms_send.campaigns SET manifest = $2::jsonb WHERE id = $1', [
    owner.manifest.id,
    JSON.stringify({ ...owner.manifest, reports }),
  ]);
  return moved;
}

/**
 * Records in a held campaign's manifest that campaign `by` sends the rest of its content, by a
 * statement that checks the lease's number: a holder that lost its lease changes nothing.
 */
export async function markSuperseded(db: Database, lease: Lease, by: string): Promise<void> {
  const updated = await db.query(
    `UPDATE sms_send.campaigns
        SET manifest = jsonb_set(manifest, '{supersededBy}',
              coalesce(manifest->'supersededBy', '[]'::jsonb) ||
              CASE WHEN coalesce(manifest->'supersededBy', '[]'::jsonb) ? $3 THEN '[]'::jsonb
                   ELSE jsonb_build_array($3::text) END)
      WHERE id = $1 AND fence = $2::bigint AND manifest IS NOT NULL`,
    [lease.id, lease.fence, by],
  );
  if (updated.rowCount === 0) {
    const held = await db.query(
      'SELECT 1 FROM sms_send.campaigns WHERE id = $1 AND fence = $2::bigint',
      [lease.id, lease.fence],
    );
    if (held.rowCount === 0) throw new HoldLostError(lease.id);
  }
}

/**
 * Sets a held campaign's report aside (the holder's lease on it): renamed with the campaign's ID
 * on this host, and its manifest told so by a statement that checks the lease's number. Undefined
 * when the campaign wrote no such report.
 */
export async function moveReportAside(
  db: Database,
  lease: Lease,
  report: string,
): Promise<string | undefined> {
  const path = resolve(report);
  const found = await db.query<{ manifest: Manifest | null }>(
    'SELECT manifest FROM sms_send.campaigns WHERE id = $1 AND fence = $2::bigint',
    [lease.id, lease.fence],
  );
  const manifest = found.rows[0]?.manifest;
  if (!manifest?.reports.includes(path)) return undefined;
  const moved = await asideName(path, lease.id);
  await renameFile(path, moved);
  const reports = manifest.reports.map((r) => (r === path ? moved : r));
  const updated = await db.query(
    'UPDATE sms_send.campaigns SET manifest = $3::jsonb WHERE id = $1 AND fence = $2::bigint',
    [lease.id, lease.fence, JSON.stringify({ ...manifest, reports })],
  );
  if (updated.rowCount === 0) throw new HoldLostError(lease.id);
  return moved;
}
