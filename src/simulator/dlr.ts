// Optional delivery reports: after a delay, calls each accepted message's DeliveryReportUrl (GET
// with its placeholders filled, or a JSON POST when it has none), with seeded statuses and retries.
import { setMaxListeners } from 'node:events';
import { systemClock } from '../shared/clock.js';
import { Agent, request } from 'undici';
import { formatTimestamp } from '../shared/timestamp.js';
import { requestRandom } from './faults.js';
import { BoundedLog } from './ledger.js';

/**
 * Turns delivery reports on. Off by default, because it makes the simulator call URLs that
 * came from request bodies; the CLI's `simulate --dlr` and tests opt in.
 */
export interface DeliveryReportOptions {
  /** The status of every report when `statusMix` is absent (the real values are unpublished; default 'DELIVRD'). */
  status?: string;
  /**
   * Statuses and their weights, e.g. `{ delivered: 0.9, expired: 0.05, undeliverable: 0.05 }`.
   * Weights need not add up to 1. Each message's status is drawn from the simulator's seed and
   * its MessageId, so the same seed gives the same statuses however requests interleave.
   */
  statusMix?: Readonly<Record<string, number>>;
  /** Delay in ms between accepting a message and calling its URL (default 0). */
  delayMs?: number;
  /** Give up on one call after this many ms (default 5000). */
  timeoutMs?: number;
  /** Calls again, this many times, when the receiver does not answer 200 (default 3). */
  retries?: number;
  /** Delay before the first retry, doubled for each further one (default 1000 ms). */
  retryDelayMs?: number;
  /** Keep at most this many of the newest report records (default: all); `sent` counts them all. */
  recordLimit?: number;
}

/** One delivery report the simulator attempted. */
export interface DeliveryReportRecord {
  readonly messageId: string;
  readonly transactionId: string;
  /** The URL called: the template with its placeholders filled ('' if it never became a URL). */
  readonly url: string;
  /** HTTP status of the receiver's last answer; undefined while pending or after an error. */
  readonly httpStatus: number | undefined;
  /** Why the report could not be delivered, if it could not. */
  readonly error: string | undefined;
}

/** Everything about one delivery report: what was sent, how, and how often. */
export interface DeliveryReportCall extends DeliveryReportRecord {
  /** The status reported (the [$STATUS] placeholder, or `Status` of the POST body). */
  readonly status: string;
  /** The [$TIMESTAMP] value: yyyymmddhhmmss in UTC, taken when the report was first sent. */
  readonly timestamp: string;
  /** GET when the template has placeholders, otherwise POST of a JSON body. */
  readonly method: 'GET' | 'POST';
  /** The JSON body of a POST. */
  readonly body: string | undefined;
  /** HTTP requests made for this report (retries included; 0 when the URL was unusable). */
  readonly attempts: number;
}

type MutableCall = { -readonly [K in keyof DeliveryReportCall]: DeliveryReportCall[K] };

/** The message a report is about. */
export interface ReportSubject {
  messageId: string;
  transactionId: string;
  destination: string;
  gateway: number;
  template: string;
}

/** Mobile country codes of the premium countries, keyed by calling code; other countries stay empty. */
const MCC_BY_CALLING_CODE: ReadonlyArray<readonly [string, string]> = [
  ['358', '244'],
  ['47', '242'],
  ['46', '240'],
  ['45', '238'],
];

/** The vendor's placeholders; a template with any of them is called with GET. */
const PLACEHOLDER = /\[\$(?:MSGID|STATUS|TIMESTAMP|GATEWAY|MNC|MCC)\]/;

/** Fills the vendor's placeholders; every value is URL-encoded since the template is a URL. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\[\$([A-Z]+)\]/g, (whole, name: string) =>
    name in values ? encodeURIComponent(values[name] ?? '') : whole,
  );
}

/** Whether a DeliveryReportUrl holds any of the vendor's placeholders (then it is called with GET). */
export function hasPlaceholders(template: string): boolean {
  return PLACEHOLDER.test(template);
}

/** FNV-1a over UTF-16 units: a stable number for a MessageId. */
function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Cumulative weights of a status mix; throws RangeError for an unusable one. */
function cumulativeMix(mix: Readonly<Record<string, number>>): Array<readonly [string, number]> {
  const entries = Object.entries(mix);
  if (entries.length === 0) throw new RangeError('deliveryReports.statusMix is empty');
  let total = 0;
  for (const [status, weight] of entries) {
    if (status === '') throw new RangeError('deliveryReports.statusMix has an empty status');
    if (!(typeof weight === 'number' && Number.isFinite(weight) && weight >= 0)) {
      throw new RangeError(
        `deliveryReports.statusMix.${status} must be a weight of 0 or more, got ${String(weight)}`,
      );
    }
    total += weight;
  }
  if (!(total > 0)) throw new RangeError('deliveryReports.statusMix weights add up to 0');
  let sum = 0;
  return entries.map(([status, weight]) => {
    sum += weight / total;
    return [status, sum] as const;
  });
}

function checkCount(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(Number.isSafeInteger(value) && value >= 0)) {
    throw new RangeError(`deliveryReports.${name} must be a whole number, 0 or more`);
  }
  return value;
}

/** Sends the reports and keeps track of them so stop() can cancel what is still pending. */
export class DeliveryReporter {
  private readonly calls: BoundedLog<MutableCall>;
  /** Every pending report waits on exactly one timer or one request. */
  private readonly timers = new Map<NodeJS.Timeout, MutableCall | undefined>();
  /** Aborted by stop(): cancels every request in flight. */
  /** Aborts every call in flight on stop(); one listener per call, and a run makes thousands. */
  private readonly stopping = withoutListenerLimit(new AbortController());
  private readonly agent: Agent;
  private readonly mix: Array<readonly [string, number]> | undefined;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private pending = 0;
  private waiters: Array<() => void> = [];
  private stopped = false;

  /** Throws RangeError for bad options, so startSimulator refuses them up front. */
  constructor(
    private readonly options: DeliveryReportOptions,
    private readonly seed = 1,
  ) {
    this.mix = options.statusMix && cumulativeMix(options.statusMix);
    this.retries = checkCount('retries', options.retries, 3);
    this.retryDelayMs = checkCount('retryDelayMs', options.retryDelayMs, 1000);
    checkCount('delayMs', options.delayMs, 0);
    const limit = options.recordLimit ?? Number.POSITIVE_INFINITY;
    if (!(limit === Number.POSITIVE_INFINITY || (Number.isSafeInteger(limit) && limit > 0))) {
      throw new RangeError('deliveryReports.recordLimit must be a positive integer');
    }
    this.calls = new BoundedLog<MutableCall>(limit);
    this.agent = new Agent({ connect: { timeout: this.timeoutMs } });
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? 5000;
  }

  /** Reports sent or attempted since start, including any the record limit has dropped. */
  get sent(): number {
    return this.calls.count;
  }

  /** The reports as first exposed (URL and answer); `calls` has the details. */
  get records(): readonly DeliveryReportRecord[] {
    return this.calls.entries.map(({ messageId, transactionId, url, httpStatus, error }) => ({
      messageId,
      transactionId,
      url,
      httpStatus,
      error,
    }));
  }

  get details(): readonly DeliveryReportCall[] {
    return this.calls.entries;
  }

  /** The status a message's report carries: drawn from the mix, the same for the same seed and MessageId. */
  statusFor(messageId: string): string {
    if (!this.mix) return this.options.status ?? 'DELIVRD';
    const roll = requestRandom(this.seed, hashString(messageId))();
    const found = this.mix.find(([, upTo]) => roll < upTo);
    return (found ?? this.mix[this.mix.length - 1])?.[0] ?? 'DELIVRD';
  }

  schedule(subject: ReportSubject): void {
    if (this.stopped) return;
    this.pending += 1;
    this.after(this.options.delayMs ?? 0, undefined, () => this.send(subject));
  }

  /** Resolves once every report scheduled so far has been answered, failed or cancelled. */
  settled(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    for (const [timer, call] of this.timers) {
      clearTimeout(timer);
      if (call) call.error = 'simulator stopped before the retry';
    }
    this.pending -= this.timers.size;
    this.timers.clear();
    this.stopping.abort();
    // Closes the kept-alive connections; requests still in flight settle through the abort.
    this.agent.destroy().catch(() => undefined);
    this.release();
  }

  private after(delayMs: number, call: MutableCall | undefined, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, delayMs);
    this.timers.set(timer, call);
  }

  private release(): void {
    if (this.pending > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private finish(call: MutableCall, httpStatus: number | undefined, error?: string): void {
    call.httpStatus = httpStatus;
    call.error = error;
    this.pending -= 1;
    this.release();
  }

  private send(subject: ReportSubject): void {
    const mcc = MCC_BY_CALLING_CODE.find(([prefix]) => subject.destination.startsWith(prefix));
    const status = this.statusFor(subject.messageId);
    const time = formatTimestamp(new Date(systemClock.now()));
    const get = hasPlaceholders(subject.template);
    const call: MutableCall = {
      messageId: subject.messageId,
      transactionId: subject.transactionId,
      url: get
        ? fillTemplate(subject.template, {
            MSGID: subject.messageId,
            STATUS: status,
            TIMESTAMP: time,
            GATEWAY: String(subject.gateway),
            MCC: mcc ? mcc[1] : '',
            MNC: mcc ? '01' : '',
          })
        : subject.template,
      httpStatus: undefined,
      error: undefined,
      status,
      timestamp: time,
      method: get ? 'GET' : 'POST',
      body: get
        ? undefined
        : JSON.stringify({
            MessageId: subject.messageId,
            TransactionId: subject.transactionId,
            Status: status,
            Timestamp: time,
          }),
      attempts: 0,
    };
    this.calls.push(call);

    let target: URL;
    try {
      target = new URL(call.url);
    } catch {
      this.finish(call, undefined, 'DeliveryReportUrl is not a valid URL');
      return;
    }
    if (target.protocol !== 'https:' && target.protocol !== 'http:') {
      this.finish(call, undefined, `unsupported scheme ${target.protocol}`);
      return;
    }
    this.attempt(call, target);
  }

  /** One HTTP request; an answer other than 200, or none, is retried while retries remain. */
  private attempt(call: MutableCall, target: URL): void {
    call.attempts += 1;
    const done = (httpStatus: number | undefined, error?: string) => {
      const problem =
        error ?? (httpStatus === 200 ? undefined : `receiver answered HTTP ${String(httpStatus)}`);
      if (problem === undefined || this.stopped || call.attempts > this.retries) {
        this.finish(call, httpStatus, problem);
        return;
      }
      call.httpStatus = httpStatus;
      call.error = problem;
      this.after(this.retryDelayMs * 2 ** (call.attempts - 1), call, () =>
        this.attempt(call, target),
      );
    };
    request(target, {
      method: call.method,
      dispatcher: this.agent,
      signal: this.stopping.signal,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      headers:
        call.body === undefined ? undefined : { 'content-type': 'application/json; charset=utf-8' },
      body: call.body,
    }).then(
      async (response) => {
        try {
          await response.body.dump();
        } catch (error) {
          done(undefined, problemOf(error));
          return;
        }
        done(response.statusCode);
      },
      (error: unknown) =>
        done(
          undefined,
          this.stopping.signal.aborted ? 'simulator stopped before an answer' : problemOf(error),
        ),
    );
  }
}

const TIMEOUTS = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** A failed call's reason for the record: undici's three timeouts read as one, as they did before. */
function problemOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && TIMEOUTS.has(code) ? 'timed out' : error.message;
}

function withoutListenerLimit(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}
