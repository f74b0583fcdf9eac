// The append-only journal file in the campaign's folder: each batch is recorded before it is sent
// and after its result, and made durable, so a run killed at any instant can be resumed without
// sending twice.
import { dirname } from 'node:path';
import { DiskFile, renameFile, syncFolder } from '../../shared/disk.js';
import { exists } from '../../shared/files.js';
import { LineAppender } from '../appender.js';
import type { JournalLine, JournalSink } from '../lines.js';

/** Journals a --force run set aside when it started sending again: `journal-<time>.ndjson`. */
export const ARCHIVED_JOURNAL = /^journal-\d+\.ndjson$/;

/**
 * Sets the journal aside for a run that sends the campaign again (--force): it stays in the
 * campaign's folder as proof of what was sent, so the campaign never looks unsent meanwhile.
 */
export async function archiveJournal(path: string, at: number): Promise<void> {
  if (!(await exists(path))) return;
  await renameFile(path, path.replace(/journal\.ndjson$/, `journal-${at}.ndjson`));
}

/**
 * Appends journal lines to the campaign's journal file; each append resolves once its line is on
 * disk (grouped per sync). Once a write or sync fails, intents are refused and results are held
 * for rewrite(), on a fresh descriptor.
 */
export class JournalWriter implements JournalSink {
  private constructor(
    readonly path: string,
    private readonly lines: LineAppender,
  ) {}

  static async open(path: string): Promise<JournalWriter> {
    const created = !(await exists(path));
    const file = await DiskFile.open(path, 'a+');
    try {
      // A new journal's name is synced in its folder before anything is recorded in it: the
      // synced intent of the first batch would otherwise be in a file a crash could leave nameless.
      if (created) await syncFolder(dirname(path));
      // A run killed mid-write leaves a torn last line; the next line must not be glued to it.
      const size = file.size();
      const last = Buffer.alloc(1);
      if (size > 0 && file.read(last, size - 1) === 1 && last[0] !== 10) file.write('\n');
    } catch (error) {
      await file.close();
      throw error;
    }
    return new JournalWriter(path, new LineAppender(file, true));
  }

  /**
   * What is about to be sent is synced before it is sent: after a machine crash, the journal must
   * still know the batch may have reached the gateway. A result line is only written: lost in a
   * machine crash (never in a killed process), its batch reads as in flight, `unknown` on resume
   * and not sent again, so a sync per result (half of all syncs) would buy detail, not safety. The
   * same holds for `posted`, whose loss leaves the batch "recorded, not known to have left".
   */
  append(line: JournalLine): Promise<void> {
    const detail = line.t === 'result' || line.t === 'posted';
    return this.lines.append(`${JSON.stringify(line)}\n`, { sync: !detail, keep: detail });
  }

  /** The first write or sync that failed; from then on no intent is recorded. */
  get failure(): Error | undefined {
    return this.lines.failed;
  }

  /** Results (and posted lines) held since a failure, not yet on the disk. */
  unrecorded(): JournalLine[] {
    return this.lines.heldLines.map((text) => JSON.parse(text) as JournalLine);
  }

  /** Writes what is held again, on a fresh descriptor; true once it is all durable. */
  rewrite(): Promise<boolean> {
    return this.lines.rewrite();
  }

  /** Syncs every line written; false when that (or an earlier write) failed: see `failure`. */
  settle(): Promise<boolean> {
    return this.lines.settle();
  }

  close(): Promise<void> {
    return this.lines.close();
  }
}
