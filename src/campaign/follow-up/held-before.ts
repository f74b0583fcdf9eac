// The rows a follow-up's ancestors left `unknown`: the gateway may hold those messages, whatever a
// later re-send of them answered, so a follow-up of a follow-up re-sends them only as unknown ones.
import { UsageError } from '../../shared/errors.js';
import type { CampaignStore } from '../../journal/store.js';
import { mayBeHeld } from '../../report/delivery-status.js';
import { readReport } from '../../report/read.js';
import { keptDeliveries } from '../../dlr/overlay.js';
import type { Manifest } from '../../journal/manifest.js';

/**
 * Every row the campaigns `manifest` follows up (its original, and theirs in turn) left in a state
 * where the gateway may hold its message. Empty for a campaign that follows up none.
 */
export async function heldBefore(store: CampaignStore, manifest: Manifest): Promise<Set<number>> {
  const held = new Set<number>();
  const seen = new Set<string>([manifest.id]);
  let of = manifest.followUp?.of;
  while (of !== undefined && !seen.has(of)) {
    seen.add(of);
    const entry = (await store.campaigns({ id: of }))[0];
    const report = entry?.manifest.reports.at(-1);
    if (!entry || report === undefined) throw unknowable(manifest.id, of);
    const overlay = await keptDeliveries(store, of);
    try {
      for await (const read of readReport(report)) {
        if (read.kind !== 'row') continue;
        const values = overlay ? overlay(read.values) : read.values;
        if (mayBeHeld(values)) held.add(Number(values['row']));
      }
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw unknowable(manifest.id, of, report);
    }
    of = entry.manifest.followUp?.of;
  }
  return held;
}

function unknowable(id: string, of: string, report?: string): UsageError {
  return new UsageError(
    `campaign ${id} follows up ${of}, whose report ${report === undefined ? 'is not known' : `${report} cannot be read`}: ` +
      'which records the gateway may have already is not known, so none is re-sent. Nothing was sent.',
    'not-retryable',
  );
}
