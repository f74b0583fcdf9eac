// Optional delivery reports: fills the DeliveryReportUrl template of accepted messages and calls it with GET.
import http from 'node:http';
import https from 'node:https';

/**
 * Turns delivery reports on. Off by default, because it makes the simulator call URLs that
 * came from request bodies; the CLI's `simulate` command and tests opt in.
 */
export interface DeliveryReportOptions {
  /** Value of the [$STATUS] placeholder (the real values are unpublished; default 'DELIVRD'). */
  status?: string;
  /** Delay in ms between accepting a message and calling its URL (default 0). */
  delayMs?: number;
  /** Give up on a report URL after this many ms (default 5000). */
  timeoutMs?: number;
}

/** One delivery report the simulator attempted. */
export interface DeliveryReportRecord {
  readonly messageId: string;
  readonly transactionId: string;
  /** The template with its placeholders filled ('' if it never became a URL). */
  readonly url: string;
  /** HTTP status of the receiver's answer; undefined while pending or after an error. */
  readonly httpStatus: number | undefined;
  /** Why the report could not be delivered, if it could not. */
  readonly error: string | undefined;
}

type MutableRecord = { -readonly [K in keyof DeliveryReportRecord]: DeliveryReportRecord[K] };

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

/** yyyymmddhhmmss in UTC, the same shape as an absolute ValidationPeriod. */
function timestamp(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    String(date.getUTCFullYear()) +
    pad(date.getUTCMonth() + 1) +
    pad(date.getUTCDate()) +
    pad(date.getUTCHours()) +
    pad(date.getUTCMinutes()) +
    pad(date.getUTCSeconds())
  );
}

/** Fills the vendor's placeholders; every value is URL-encoded since the template is a URL. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\[\$([A-Z]+)\]/g, (whole, name: string) =>
    name in values ? encodeURIComponent(values[name] ?? '') : whole,
  );
}

/** Sends the reports and keeps track of them so stop() can cancel what is still pending. */
export class DeliveryReporter {
  private readonly log: MutableRecord[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<http.ClientRequest>();
  private readonly httpAgent = new http.Agent({ keepAlive: true });
  private readonly httpsAgent = new https.Agent({ keepAlive: true });
  private pending = 0;
  private waiters: Array<() => void> = [];
  private stopped = false;

  constructor(private readonly options: DeliveryReportOptions) {}

  get records(): readonly DeliveryReportRecord[] {
    return this.log;
  }

  schedule(subject: ReportSubject): void {
    if (this.stopped) return;
    this.pending += 1;
    const delay = this.options.delayMs ?? 0;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.send(subject);
    }, delay);
    this.timers.add(timer);
  }

  /** Resolves once every report scheduled so far has been answered, failed or cancelled. */
  settled(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.pending -= this.timers.size;
    this.timers.clear();
    for (const request of this.inFlight) request.destroy();
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
    this.release();
  }

  private release(): void {
    if (this.pending > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Ends one report exactly once, however many of response, error and close fire. */
  private finisher(
    record: MutableRecord,
  ): (httpStatus: number | undefined, error?: string) => void {
    let finished = false;
    return (httpStatus, error) => {
      if (finished) return;
      finished = true;
      record.httpStatus = httpStatus;
      record.error = error;
      this.pending -= 1;
      this.release();
    };
  }

  private send(subject: ReportSubject): void {
    const mcc = MCC_BY_CALLING_CODE.find(([prefix]) => subject.destination.startsWith(prefix));
    const url = fillTemplate(subject.template, {
      MSGID: subject.messageId,
      STATUS: this.options.status ?? 'DELIVRD',
      TIMESTAMP: timestamp(new Date()),
      GATEWAY: String(subject.gateway),
      MCC: mcc ? mcc[1] : '',
      MNC: mcc ? '01' : '',
    });
    const record: MutableRecord = {
      messageId: subject.messageId,
      transactionId: subject.transactionId,
      url,
      httpStatus: undefined,
      error: undefined,
    };
    this.log.push(record);
    const done = this.finisher(record);

    let target: URL;
    try {
      target = new URL(url);
    } catch {
      done(undefined, 'DeliveryReportUrl is not a valid URL');
      return;
    }
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') {
      done(undefined, `unsupported scheme ${target.protocol}`);
      return;
    }
    const get = secure ? https.get : http.get;
    const request = get(target, {
      agent: secure ? this.httpsAgent : this.httpAgent,
      timeout: this.options.timeoutMs ?? 5000,
    });
    this.inFlight.add(request);
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => done(response.statusCode));
      response.on('error', (error) => done(undefined, error.message));
    });
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (error) => done(undefined, error.message));
    request.on('close', () => {
      this.inFlight.delete(request);
      done(undefined, 'connection closed before an answer');
    });
  }
}
