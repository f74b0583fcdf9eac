// Public entry of the in-process RestSmsRequest simulator: options, the Simulator handle, startSimulator().
import type { DeliveryReportCall, DeliveryReportOptions, DeliveryReportRecord } from './dlr.js';
import { DeliveryReporter } from './dlr.js';
import { validateFaults, type FaultOptions } from './faults.js';
import {
  BoundedLog,
  type LedgerEntry,
  type MutableRequestRecord,
  type RequestRecord,
} from './ledger.js';
import { credentialCheck, type Credentials } from './rules.js';
import { SimulatorServer } from './server.js';
import { LedgerBook, type LedgerStats } from './book.js';

export type { DeliveryReportCall, DeliveryReportOptions, DeliveryReportRecord } from './dlr.js';
export type { FaultOptions } from './faults.js';
export type { LedgerStats } from './book.js';
export {
  findDuplicates,
  type LedgerEntry,
  type RequestOutcome,
  type RequestRecord,
} from './ledger.js';
export type { Credentials } from './rules.js';
export { SHORT_NUMBER_GATEWAY_LIMIT } from '../shared/premium.js';
export { MAX_BODY_BYTES } from './server.js';
export {
  STATUS_CODES,
  statusCodeTable,
  type StatusCodeInfo,
  type StatusCodeName,
} from './status-codes.js';

export interface SimulatorOptions {
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default '127.0.0.1'; the simulator never binds anything else unless told to. */
  host?: string;
  /** When absent, any non-empty Username and Password of at most 128 characters is accepted. */
  credentials?: Credentials;
  faults?: FaultOptions;
  /** Default 1; the same seed and the same order of requests give the same fault decisions. */
  seed?: number;
  /** ExtraInfo.server of every result, default 'sim1'. */
  serverName?: string;
  /**
   * Keep at most this many of the newest ledger entries (default: all). A long `simulate`
   * session or a benchmark of millions of messages would otherwise grow without bound.
   */
  ledgerLimit?: number;
  /** Keep at most this many of the newest request records (default 100,000). */
  requestLimit?: number;
  /** Send delivery reports to each accepted message's DeliveryReportUrl; off when absent. */
  deliveryReports?: DeliveryReportOptions;
  /** Serve https with this key and certificate (PEM); plain http when absent. */
  tls?: { key: string; cert: string };
  /**
   * Say on every answer that it is a simulator (the `x-sms-send-simulator` header), so a campaign
   * sent here is a rehearsal: what `sms-send simulate` does. Off by default, where a program or
   * a test stands the simulator in for the real gateway.
   */
  rehearsal?: boolean;
  /**
   * `counter` (the default): a prefix and a counter, as a gateway that numbers its transactions
   * gives; `random`: 32 random hex digits each, as a gateway that does not count up may give.
   */
  transactionIds?: TransactionIds;
  /**
   * Write every accepted message here as NDJSON (MessageId, destination, TransactionId, time), and
   * count the MessageIds, distinct and repeated, for `stats()` and `GET /stats`.
   */
  ledgerFile?: string;
}

export type TransactionIds = 'counter' | 'random';

export interface Simulator {
  /** Base endpoint, e.g. 'http://127.0.0.1:41234'; the client POSTs to url + '/json/reply/RestSmsRequest'. */
  readonly url: string;
  readonly port: number;
  /** Every message accepted (StatusCode 0), in order (the newest `ledgerLimit` of them). */
  readonly ledger: readonly LedgerEntry[];
  /** Every HTTP request received, faulted ones included (the newest `requestLimit` of them). */
  readonly requests: readonly RequestRecord[];
  /** Messages accepted since start, including any the ledger limit has dropped. */
  readonly acceptedCount: number;
  /** Accepted messages; with a ledger file, their MessageIds distinct and repeated. */
  stats(): LedgerStats;
  /** HTTP requests received since start, including any the request limit has dropped. */
  readonly requestCount: number;
  /** Delivery reports attempted (empty unless `deliveryReports` was set). */
  readonly deliveryReports: readonly DeliveryReportRecord[];
  /** The same reports in full: status, timestamp, method, body and attempts. */
  readonly deliveryReportCalls: readonly DeliveryReportCall[];
  /** Resolves once every delivery report scheduled so far has been answered or has failed. */
  deliveryReportsSettled(): Promise<void>;
  /** Replaces the fault settings for requests that arrive from now on. */
  setFaults(faults: FaultOptions): void;
  /** Closes the server and destroys every open socket, hung ones included; idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_REQUEST_LIMIT = 100_000;

function checkLimit(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(Number.isSafeInteger(value) && value > 0)) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

/**
 * Starts a simulator of the RestSmsRequest service on loopback. Throws RangeError for bad
 * options and rejects if the port cannot be bound.
 *
 * Where the service interface (docs/gateway.md#fields-and-their-limits) is silent the simulator
 * decides as follows (message-level decisions
 * are listed with the StatusCode table in status-codes.ts):
 * - Order of handling: path (404) → method (405, Allow: POST) → JSONP callback name (400)
 *   → format (406) → Content-Type (415 unless absent or JSON) → size (413 over 32 MiB) →
 *   body read → fault dice before processing → JSON (400) → credentials → maxBatchSize →
 *   messages → fault dice after processing → answer after the latency.
 * - Format: an explicit selector (the `.json` suffix, `format=`) outranks Accept, and any
 *   explicit JSON choice wins; another suffix or `format=` value, or an Accept header that
 *   admits no JSON type, gets 406. The path is matched case-insensitively, as ServiceStack does.
 * - JSONP wraps RestSmsResponse bodies (also a credentials refusal under a 401/403
 *   authStatus); error bodies (400, 413, 415, 429, 500, 503) keep their status and are plain
 *   JSON in ServiceStack's `{"ResponseStatus":{"ErrorCode","Message"}}` shape.
 * - Credentials are request-level: ProcessResult false, "Authentication failed: …",
 *   Messages [], HTTP 200 (or faults.authStatus). A wrong pair is reported without saying
 *   which half was wrong. maxBatchSize is checked after the credentials.
 * - Faults before processing are checked in the order unavailable, rateLimited,
 *   resetBeforeProcessing, hang, processResultFalse (the first that fires wins); after
 *   processing, resetAfterProcessing wins over errorAfterProcessing. Faults apply even to a
 *   body that would fail to parse: a busy gateway does not read it.
 * - Latency runs after processing, so a client that times out may find its messages in the
 *   ledger: exactly the "unknown" case a client must never retry blindly.
 * - TransactionIds are `<8 random hex><instance number, base 36>-<counter>`, unique for the
 *   life of the process and across instances (or, with `transactionIds: 'random'`, 32 random hex
 *   digits, the longest the service interface allows); ExtraInfo.subnumref is the gateway number
 *   followed by a 10-digit counter; rejected messages carry ExtraInfo.server only.
 * - `requests` keeps the newest 100,000 records by default (`requestLimit`), `ledger` keeps
 *   everything unless `ledgerLimit` is set; the counts always cover the whole run.
 * - Delivery reports (only with `deliveryReports`): one per accepted message that has a
 *   DeliveryReportUrl, `delayMs` after acceptance. A URL with any of the placeholders
 *   [$MSGID] [$STATUS] [$TIMESTAMP] [$GATEWAY] [$MNC] [$MCC] is filled and called with GET;
 *   one without is POSTed `{"MessageId","TransactionId","Status","Timestamp"}` as JSON. The
 *   status comes from `statusMix`, drawn from the seed and the MessageId. An answer other than
 *   200 (or none within `timeoutMs`) is retried `retries` times, waiting `retryDelayMs`,
 *   doubled each time; an unusable URL is not retried.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  let faults = validateFaults(options.faults ?? {});
  const seed = options.seed ?? 1;
  if (!Number.isFinite(seed)) throw new RangeError(`seed must be a number, got ${String(seed)}`);
  const host = options.host ?? '127.0.0.1';
  const ledger = new BoundedLog<LedgerEntry>(
    checkLimit('ledgerLimit', options.ledgerLimit, Number.POSITIVE_INFINITY),
  );
  const requests = new BoundedLog<MutableRequestRecord>(
    checkLimit('requestLimit', options.requestLimit, DEFAULT_REQUEST_LIMIT),
  );
  const reporter =
    options.deliveryReports && new DeliveryReporter(options.deliveryReports, Math.trunc(seed));
  const checkCredentials = credentialCheck(options.credentials);
  const book =
    options.ledgerFile === undefined ? undefined : await LedgerBook.open(options.ledgerFile);

  const server = new SimulatorServer({
    seed: Math.trunc(seed),
    serverName: options.serverName ?? 'sim1',
    ledger,
    requests,
    reporter,
    faults: () => faults,
    checkCredentials,
    tls: options.tls,
    rehearsal: options.rehearsal === true,
    randomTransactionIds: options.transactionIds === 'random',
    ...(book ? { book } : {}),
  });
  const port = await server.listen(options.port ?? 0, host);
  const scheme = options.tls ? 'https' : 'http';
  const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url,
    port,
    get ledger() {
      return ledger.entries;
    },
    get requests() {
      return requests.entries;
    },
    get acceptedCount() {
      return ledger.count;
    },
    get requestCount() {
      return requests.count;
    },
    get deliveryReports() {
      return reporter?.records ?? [];
    },
    get deliveryReportCalls() {
      return reporter?.details ?? [];
    },
    deliveryReportsSettled: () => reporter?.settled() ?? Promise.resolve(),
    setFaults(next: FaultOptions) {
      faults = validateFaults(next);
    },
    stats: () => server.stats(),
    async stop() {
      await server.stop();
      await book?.close();
    },
  };
}
