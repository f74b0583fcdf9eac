// What the send step works with, once the campaign is planned and marked running: the run, the
// campaign, the state it holds, what earlier runs settled, and the spool read back.
import type { Entry } from '../../validate/entries.js';
import { readSpool, SpoolUnreadableError } from '../../validate/spool.js';
import type { CampaignRun } from '../run.js';
import type { RunHold } from './hold.js';
import type { Validated } from './planned.js';
import type { Settled } from './settled.js';

export interface Sending {
  run: CampaignRun;
  campaign: Validated;
  hold: RunHold;
  settled: Settled;
  spool: CheckedSpool;
  /** MessageIds an earlier report holds a delivery report for: a resume takes them as accepted. */
  delivered?: (messageId: string) => boolean;
}

/** The spool read back, each line checked and counted; whether a reading found it unreadable. */
export interface CheckedSpool {
  unreadable: boolean;
  read(keep?: (row: number) => boolean): AsyncGenerator<Entry[]>;
}

export function checkedSpool(path: string, lines: number): CheckedSpool {
  const spool: CheckedSpool = {
    unreadable: false,
    async *read(keep) {
      try {
        yield* readSpool(path, keep, lines);
      } catch (error) {
        if (error instanceof SpoolUnreadableError) spool.unreadable = true;
        throw error;
      }
    },
  };
  return spool;
}
