// Per-message acceptance, apart from HTTP: checks each item, draws its fault, numbers and books the accepted.
import type { RestSmsMessageResp } from '../gateway/types.js';
import type { ReportSubject } from './dlr.js';
import type { LedgerEntry } from './ledger.js';
import { decimal } from '../shared/digits.js';
import { checkMessage } from './rules.js';
import { STATUS_CODES } from './status-codes.js';

/** What acceptance needs from the request and the simulator; nothing here touches a socket. */
export interface AcceptContext {
  /** The `server` of every result's ExtraInfo. */
  readonly serverName: string;
  /** Sequence number of the HTTP request, for the ledger. */
  readonly request: number;
  /** Date.now() for this request's accepted messages. */
  readonly receivedAt: number;
  /** Messages accepted before this request (the ledger's count): subnumref numbers on from it. */
  readonly acceptedBefore: number;
  nextTransactionId(): string;
  /** The request's per-message operator-fault dice. */
  rejectNext(): boolean;
}

export interface Acceptance {
  /** One result per item, in order (rules 1–3). */
  results: RestSmsMessageResp[];
  /** For the ledger, in order. */
  accepted: LedgerEntry[];
  /** Accepted messages that asked for a delivery report. */
  reports: ReportSubject[];
}

/** Validates and accepts or rejects each item in order. */
export function acceptMessages(items: readonly unknown[], ctx: AcceptContext): Acceptance {
  const results: RestSmsMessageResp[] = new Array<RestSmsMessageResp>(items.length);
  const accepted: LedgerEntry[] = [];
  const reports: ReportSubject[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const check = checkMessage(item);
    // Drawn for every item so one invalid message does not shift the dice of the next.
    const rejected = ctx.rejectNext();
    const transactionId = ctx.nextTransactionId();
    if (!check.ok) {
      results[i] = new Result(
        check.code,
        check.description,
        check.messageId,
        transactionId,
        new ServerInfo(ctx.serverName),
      );
    } else if (rejected) {
      results[i] = new Result(
        STATUS_CODES.simulatedRejection.code,
        'Rejected by simulated operator fault',
        check.messageId,
        transactionId,
        new ServerInfo(ctx.serverName),
      );
    } else {
      accepted.push(
        new Accepted(
          transactionId,
          check.messageId,
          check.destination,
          item as Record<string, unknown>,
          ctx.request,
          ctx.receivedAt,
        ),
      );
      const number = ctx.acceptedBefore + accepted.length;
      results[i] = new Result(
        STATUS_CODES.accepted.code,
        'Accepted',
        check.messageId,
        transactionId,
        new AcceptedInfo(
          ctx.serverName,
          decimal(check.gateway) + decimal(number).padStart(10, '0'),
        ),
      );
      if (check.deliveryReportUrl !== undefined) {
        reports.push({
          messageId: check.messageId,
          transactionId,
          destination: check.destination,
          gateway: check.gateway,
          template: check.deliveryReportUrl,
        });
      }
    }
  }
  return { results, accepted, reports };
}

// Results and ledger entries are built by constructors, not object literals. A request's results
// all live until its answer is written; early in a run, while V8's young generation is small, that
// made V8 judge the literals' objects long-lived and allocate them straight into its old
// generation (allocation-site pretenuring), where they and the strings they hold waited for a full
// collection. Constructors carry no such allocation site.

/** One message's result, its fields in the wire order. */
class Result implements RestSmsMessageResp {
  constructor(
    readonly StatusCode: number,
    readonly StatusDescription: string,
    readonly MessageId: string,
    readonly TransactionId: string,
    readonly ExtraInfo: Record<string, string>,
  ) {}
}

/** ExtraInfo of a message not accepted. */
class ServerInfo {
  [field: string]: string;
  constructor(readonly server: string) {}
}

/** ExtraInfo of an accepted message. */
class AcceptedInfo {
  [field: string]: string;
  constructor(
    readonly server: string,
    readonly subnumref: string,
  ) {}
}

class Accepted implements LedgerEntry {
  constructor(
    readonly transactionId: string,
    readonly messageId: string,
    readonly destination: string,
    readonly message: Record<string, unknown>,
    readonly request: number,
    readonly receivedAt: number,
  ) {}
}
