// Per-message acceptance, apart from HTTP: checks each item, draws its fault, numbers and books the accepted.
import type { RestSmsMessageResp } from '../gateway/types.js';
import type { ReportSubject } from './dlr.js';
import type { LedgerEntry } from './ledger.js';
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
      results[i] = {
        StatusCode: check.code,
        StatusDescription: check.description,
        MessageId: check.messageId,
        TransactionId: transactionId,
        ExtraInfo: { server: ctx.serverName },
      };
    } else if (rejected) {
      results[i] = {
        StatusCode: STATUS_CODES.simulatedRejection.code,
        StatusDescription: 'Rejected by simulated operator fault',
        MessageId: check.messageId,
        TransactionId: transactionId,
        ExtraInfo: { server: ctx.serverName },
      };
    } else {
      accepted.push({
        transactionId,
        messageId: check.messageId,
        destination: check.destination,
        message: item as Record<string, unknown>,
        request: ctx.request,
        receivedAt: ctx.receivedAt,
      });
      const number = ctx.acceptedBefore + accepted.length;
      results[i] = {
        StatusCode: STATUS_CODES.accepted.code,
        StatusDescription: 'Accepted',
        MessageId: check.messageId,
        TransactionId: transactionId,
        ExtraInfo: {
          server: ctx.serverName,
          subnumref: String(check.gateway) + String(number).padStart(10, '0'),
        },
      };
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
