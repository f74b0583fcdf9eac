// The append-only journal in the campaign's state folder: each batch is recorded before it is sent
// and after its result, and made durable, so a run killed at any instant can be resumed without sending twice.
import { open, rename } from 'node:fs/promises';
import { lineChunks, openIfExists } from '../shared/files.js';
import { UsageError } from '../shared/errors.js';
import { LineAppender } from './appender.js';
import { SettledResults } from './results.js';
import type { Outcome, RowResult } from '../message/outcome.js';

export const JOURNAL_VERSION = 1;

/** Journals a --force run set aside when it started sending again: `journal-<time>.ndjson`. */
export const ARCHIVED_JOURNAL = /^journal-\d+\.ndjson$/;

/**
 * Sets the journal aside for a run that sends the campaign again (--force): it stays in the
 * campaign's folder as proof of what was sent, so the campaign never looks unsent meanwhile.
 */
export async function archiveJournal(path: string): Promise<void> {
  await rename(path, path.replace(/journal\.ndjson$/, `journal-${Date.now()}.ndjson`)).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    },
  );
}

type ResultTuple = [
  row: number,
  outcome: Outcome,
  attempts: number,
  statusCode?: number | null,
  statusDescription?: string | null,
  transactionId?: string | null,
  extraInfo?: Record<string, string> | null,
  error?: string | null,
];

export type JournalLine =
  | { t: 'start'; v: number; campaign: string; run: number; at: string }
  | { t: 'send'; b: string; rows: number[] }
  /** The batch's last attempt surely did not reach the gateway: it is not in flight. */
  | { t: 'unsent'; b: string }
  | { t: 'done'; b: string; r: ResultTuple[] };

/** Appends journal lines; each append resolves once its line is on disk (grouped per sync). */
export class JournalWriter {
  private constructor(
    readonly path: string,
    private readonly lines: LineAppender,
  ) {}

  static async open(path: string): Promise<JournalWriter> {
    const handle = await open(path, 'a+', 0o600);
    // A run killed mid-write leaves a torn last line; the next line must not be glued to it.
    const { size } = await handle.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 10) await handle.write('\n');
    }
    return new JournalWriter(path, new LineAppender(handle, true));
  }

  /**
   * What is about to be sent is synced before it is sent: after a machine crash, the journal must
   * still know the batch may have reached the gateway. A result line is only written: lost in a
   * machine crash (never in a killed process), its batch reads as in flight, `unknown` on resume
   * and not sent again, so a sync per result (half of all syncs) would buy detail, not safety.
   */
  append(line: JournalLine): Promise<void> {
    return this.lines.append(`${JSON.stringify(line)}\n`, { sync: line.t !== 'done' });
  }

  close(): Promise<void> {
    return this.lines.close();
  }
}

export function sendLine(batch: string, rows: readonly number[]): JournalLine {
  return { t: 'send', b: batch, rows: [...rows] };
}

export function doneLine(batch: string, rows: readonly RowResult[]): JournalLine {
  return {
    t: 'done',
    b: batch,
    r: rows.map((r) => [
      r.row,
      r.outcome,
      r.attempts,
      r.statusCode ?? null,
      r.statusDescription ?? null,
      r.transactionId ?? null,
      r.extraInfo ?? null,
      r.error ?? null,
    ]),
  };
}

/** What an earlier run left: the results it recorded, and the rows it sent without an answer. */
export interface JournalState {
  /** The content hash the campaign's runs were started with. */
  campaign: string;
  runs: number;
  /** Whether anything may have reached the gateway: a result, or a batch sent without an answer. */
  sent: boolean;
  results: SettledResults;
  inFlight: Map<number, number>;
}

/**
 * Reads a journal back, a chunk of lines at a time: a million-record journal is some 150 MB of
 * text, and only what it settles is kept (compactly, see SettledResults).
 */
export async function readJournal(path: string): Promise<JournalState | undefined> {
  const handle = await openIfExists(path);
  if (handle === undefined) return undefined;
  try {
    return await readLines(path, lineChunks(handle));
  } finally {
    await handle.close();
  }
}

async function readLines(path: string, chunks: AsyncIterable<string[]>): Promise<JournalState> {
  const state: JournalState = {
    campaign: '',
    runs: 0,
    sent: false,
    results: new SettledResults(),
    inFlight: new Map(),
  };
  const rowsOf = new Map<string, number[]>();
  for await (const raws of chunks) {
    for (const raw of raws) {
      if (raw === '') continue;
      let line: JournalLine;
      try {
        line = JSON.parse(raw) as JournalLine;
      } catch {
        // Only the last line can be torn (killed mid-write); its batch then counts as in flight.
        continue;
      }
      if (line.t === 'start') {
        // A newer sms-send may record what this one cannot read back: resuming would guess.
        if (line.v > JOURNAL_VERSION) {
          throw new UsageError(
            `${path} was written by a newer sms-send (journal version ${line.v}, this one reads ${JOURNAL_VERSION}); nothing was sent. Resume with that version.`,
            'journal-version',
          );
        }
        state.campaign = line.campaign;
        state.runs = Math.max(state.runs, line.run);
      } else if (line.t === 'send') {
        rowsOf.set(line.b, line.rows);
        for (const row of line.rows) state.inFlight.set(row, (state.inFlight.get(row) ?? 0) + 1);
      } else if (line.t === 'unsent') {
        for (const row of rowsOf.get(line.b) ?? []) {
          const times = (state.inFlight.get(row) ?? 0) - 1;
          if (times > 0) state.inFlight.set(row, times);
          else state.inFlight.delete(row);
        }
      } else if (line.t === 'done') {
        rowsOf.delete(line.b);
        for (const [
          row,
          outcome,
          attempts,
          statusCode,
          description,
          transactionId,
          extraInfo,
          error,
        ] of line.r) {
          state.inFlight.delete(row);
          // A field written as null or left off the tuple is absent either way: SettledResults
          // keeps null for both and gives back only what is not null.
          state.results.set({
            row,
            outcome,
            attempts,
            statusCode: statusCode ?? undefined,
            statusDescription: description ?? undefined,
            transactionId: transactionId ?? undefined,
            extraInfo: extraInfo ?? undefined,
            error: error ?? undefined,
          });
        }
      }
    }
  }
  // Sent means something may have reached the gateway: a result, or a batch still in flight.
  // Batches taken back as unsent (refused connections) and nothing else leave nothing to block.
  state.sent = state.results.size > 0 || state.inFlight.size > 0;
  return state;
}
