// The NDJSON log of every delivery report received, malformed ones included, and reading it back.
import { DiskFile } from '../shared/disk.js';
import { describeSystemError, UsageError } from '../shared/errors.js';
import { LineAppender } from '../journal/appender.js';
import { jsonLines } from '../report/format.js';
import { openForReading } from '../shared/files.js';
import { isPlainObject } from '../shared/plain-object.js';
import { proofOf, reportFromParams, type DeliveryReport } from './matching.js';

/** `<report>.dlr.ndjson`: it travels with the report, like the journal. */
export function defaultLogPath(reportPath: string): string {
  return `${reportPath}.dlr.ndjson`;
}

/**
 * One line of the log. A report has messageId (and status, timestamp, transactionId when sent);
 * a malformed request has `malformed` with the reason. `params` holds every parameter as
 * received (query and body merged, body winning); `body` the raw body of a malformed POST.
 */
export interface LogLine {
  receivedAt: string;
  method: string;
  path: string;
  messageId?: string;
  status?: string;
  timestamp?: string;
  transactionId?: string;
  malformed?: string;
  /** Why a report changed nothing (unsigned, bad signature, unknown id, bad status). */
  refused?: string;
  params: Record<string, string>;
  body?: string;
}

/**
 * Appends lines in arrival order; each append resolves once its line is written (grouped into
 * one write per turn of the event loop). Written, not synced: a crash of the process loses
 * nothing, a crash of the machine may lose the last lines; close() syncs.
 */
export class DlrLog {
  private constructor(
    readonly path: string,
    private readonly lines: LineAppender,
  ) {}

  /** Opens for appending: an earlier session's lines are kept. */
  static async open(path: string): Promise<DlrLog> {
    try {
      return new DlrLog(path, new LineAppender(await DiskFile.open(path, 'a', 0o666), false));
    } catch (error) {
      throw new UsageError(`cannot write the log ${path}: ${describeSystemError(error)}`);
    }
  }

  append(line: LogLine): Promise<void> {
    return this.lines.append(`${JSON.stringify(line)}\n`);
  }

  close(): Promise<void> {
    return this.lines.close();
  }
}

/** One line of a log read back. */
export type LogEntry =
  | { kind: 'report'; line: number; report: DeliveryReport }
  | { kind: 'malformed'; line: number; reason: string };

/**
 * Reads a log of delivery reports: this receiver's own lines, or any NDJSON of objects with a
 * msgid / MessageId (any case) and optionally status and timestamp. Lines the receiver logged as
 * malformed, lines that are not JSON objects and objects with no message id come back as
 * `malformed`, in order, with everything else.
 */
export async function* readLog(path: string): AsyncGenerator<LogEntry> {
  const handle = await openForReading(path, 'log', 'usage');
  try {
    const input = handle.createReadStream({ autoClose: false, encoding: 'utf8' });
    for await (const { line, value } of jsonLines(input)) {
      if (value === undefined) {
        yield { kind: 'malformed', line, reason: 'not JSON' };
        continue;
      }
      if (!isPlainObject(value)) {
        yield { kind: 'malformed', line, reason: 'not a JSON object' };
        continue;
      }
      if (typeof value['malformed'] === 'string') {
        yield { kind: 'malformed', line, reason: value['malformed'] };
        continue;
      }
      const receivedAt = typeof value['receivedAt'] === 'string' ? value['receivedAt'] : '';
      let parsed = reportFromParams(value, receivedAt);
      const params = value['params'];
      if (!parsed.ok && isPlainObject(params)) parsed = reportFromParams(params, receivedAt);
      // The receiver's own lines keep the proof among the parameters as received.
      if (parsed.ok && parsed.report.proof === undefined && isPlainObject(params)) {
        const proof = proofOf(params);
        if (proof !== undefined) parsed.report.proof = proof;
      }
      yield parsed.ok
        ? { kind: 'report', line, report: parsed.report }
        : { kind: 'malformed', line, reason: parsed.reason };
    }
  } finally {
    await handle.close();
  }
}
