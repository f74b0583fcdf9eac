// Answers a run received but could not journal (a full or failing disk), taken back from the report
// it wrote them to: a resume keeps them accepted or rejected, and never sends them again
// (docs/campaign-state.md#when-the-disk-fails).
import type { SettledResult } from '../journal/columns.js';
import { adoptResults, type JournalState } from '../journal/reading.js';
import { readableFormat } from '../report/format.js';
import { pickRows } from '../report/pick.js';
import { isFile } from '../shared/files.js';
import type { Entry } from '../validate/entries.js';
import { readSpool, SpoolUnreadableError } from '../validate/spool.js';

/** The campaign's records as its spool holds them, passing over the rows `keep` turns down. */
export type SpoolReader = (keep?: (row: number) => boolean) => AsyncIterable<readonly Entry[]>;

/** A gateway's answer a report row holds, with the MessageId it was given for. */
interface ReportedAnswer {
  messageId: string;
  result: SettledResult;
}

/**
 * Takes into `journal` the gateway's answers that `report` holds for rows the journal leaves in
 * flight, each checked against the spool's MessageId for its row (a report of another campaign at
 * the same path settles nothing). Returns how many it took.
 */
export async function takeAnswersFromReport(
  journal: JournalState,
  report: string | undefined,
  spool: SpoolReader,
): Promise<number> {
  if (journal.inFlight.size === 0 || report === undefined) return 0;
  const reported = await answersIn(report, (row) => journal.inFlight.has(row));
  if (reported.size === 0) return 0;
  const confirmed: SettledResult[] = [];
  for await (const chunk of spool((row) => reported.has(row))) {
    for (const entry of chunk) {
      const answer = reported.get(entry.row);
      if (entry.kind === 'message' && answer?.messageId === entry.messageId) {
        confirmed.push(answer.result);
      }
    }
  }
  adoptResults(journal, confirmed);
  return confirmed.length;
}

/**
 * takeAnswersFromReport, checked against the campaign's spool on this host (`spool`): none are
 * taken when the spool is missing or does not read back as written, as none could be checked.
 */
export async function takeKeptAnswers(
  journal: JournalState,
  report: string | undefined,
  spool: string,
): Promise<number> {
  try {
    return await takeAnswersFromReport(journal, report, (keep) => readSpool(spool, keep));
  } catch (error) {
    if (error instanceof SpoolUnreadableError || isSystemError(error)) return 0;
    throw error;
  }
}

/** An error of a system call (it has an errno code), not of sms-send's own code. */
function isSystemError(error: unknown): boolean {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

/**
 * The report's rows that hold a gateway's answer (accepted with StatusCode 0, rejected with
 * another) for the rows asked about. Only whole rows count: a row cut short by a crash is left
 * out. Only the rows asked about are parsed (pickRows), so a resume of millions stays quick.
 */
async function answersIn(
  report: string,
  wanted: (row: number) => boolean,
): Promise<Map<number, ReportedAnswer>> {
  const answers = new Map<number, ReportedAnswer>();
  try {
    readableFormat(report);
  } catch {
    return answers;
  }
  if (!(await isFile(report))) return answers;
  let last: number | undefined;
  try {
    for await (const values of pickRows(report, wanted)) {
      const answer = answerOf(values);
      last = answer?.result.row;
      if (answer) answers.set(answer.result.row, answer);
    }
  } catch {
    // A report torn by a crash: what was read before the tear stands, but its last row.
    if (last !== undefined) answers.delete(last);
  }
  return answers;
}

/** A report row as the gateway's answer it records, or undefined when it records none. */
export function answerOf(values: Readonly<Record<string, unknown>>): ReportedAnswer | undefined {
  const row = whole(values['row']);
  const attempts = whole(values['attempts']);
  const statusCode = whole(values['statusCode']);
  const outcome = values['outcome'];
  const messageId = text(values['messageId']);
  if (row === undefined || row < 1 || attempts === undefined || statusCode === undefined) return;
  if (messageId === undefined) return undefined;
  if (
    !(outcome === 'accepted' && statusCode === 0) &&
    !(outcome === 'rejected' && statusCode !== 0)
  )
    return undefined;
  const result: SettledResult = { row, outcome, attempts, statusCode };
  const description = text(values['statusDescription']);
  if (description !== undefined) result.statusDescription = description;
  const transactionId = text(values['transactionId']);
  if (transactionId !== undefined) result.transactionId = transactionId;
  const extraInfo = extraInfoOf(values['extraInfo']);
  if (extraInfo !== undefined) result.extraInfo = extraInfo;
  const fields = Object.values(values);
  // A block of zeros left by a crash is not a row, whatever it parses as.
  if (fields.some((value) => typeof value === 'string' && value.includes('\u0000'))) return;
  return { messageId, result };
}

function whole(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) ? number : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** ExtraInfo as a JSON report keeps it (an object), or as CSV writes it (`key=value; key=value`). */
function extraInfoOf(value: unknown): Record<string, string> | undefined {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    );
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }
  if (typeof value !== 'string' || value === '') return undefined;
  const info: Record<string, string> = {};
  for (const pair of value.split('; ')) {
    const at = pair.indexOf('=');
    if (at > 0) info[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return Object.keys(info).length > 0 ? info : undefined;
}
