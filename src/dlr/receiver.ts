// The delivery-report receiver: logs every request, answers at once, and folds reports into the report.
import { EventEmitter } from 'node:events';
import { systemClock } from '../shared/clock.js';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import { readCappedBody } from '../shared/body.js';
import { isPlainObject } from '../shared/plain-object.js';
import { fileIdentity } from '../report/update.js';
import { foldIntoReport, type FoldResult } from './apply.js';
import { DlrLog, type LogLine } from './log.js';
import { DeliveryBook, reportFromParams, type DeliveryReport } from './matching.js';
import { noRefusals, type ProofRefusal, type ProofVerdict, type Verify } from './proof.js';

/** Larger bodies get 413: a delivery report is a few hundred bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * What the receiver allows any one client, so that a flood of requests (forged or not) neither
 * grows its memory or its log without bound nor keeps valid reports from being taken.
 */
export interface ReceiverLimits {
  /** Open connections at once; more are closed as they come (default 256). */
  maxConnections: number;
  /** A client must have sent its request's headers within this (default 10 s). */
  headersTimeoutMs: number;
  /** … and its whole request, body included, within this (default 20 s). */
  requestTimeoutMs: number;
  /** Path and query string, at most (default 8 KiB; longer gets 414). */
  maxTargetBytes: number;
  /** Request body, at most (default 64 KiB; larger gets 413). */
  maxBodyBytes: number;
  /** Refused and malformed requests logged per reason in one session; the rest are only counted. */
  loggedPerReason: number;
}

export const DEFAULT_LIMITS: ReceiverLimits = {
  maxConnections: 256,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 20_000,
  maxTargetBytes: 8 * 1024,
  maxBodyBytes: MAX_BODY_BYTES,
  loggedPerReason: 100,
};
/** The raw body kept in the log for a malformed POST, at most. */
const LOGGED_BODY_CHARS = 64 * 1024;
/** How long stop() lets requests in progress finish before cutting their connections. */
const STOP_GRACE_MS = 2000;

export interface ReceiverOptions {
  /**
   * The campaign's report (csv, json or ndjson); it need not exist yet. Without one, reports
   * are only counted, booked and emitted (`check --await-dlr` waits for one message's).
   */
  reportPath?: string;
  /** The NDJSON log every request is appended to; without one, nothing is written. */
  logPath?: string;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Fold into the report at most this often (default 1000 ms); also how often a deferred fold is retried. */
  updateIntervalMs?: number;
  /**
   * Which reports may change the report (dlr/proof.ts); refused ones are answered 200 all the
   * same, counted, logged up to a limit, and change nothing. Without one, every report is taken.
   */
  verify?: Verify;
  /**
   * Keeps a report the verifier let through (with the campaign its proof names) where every host
   * sees it: the report is acknowledged only once this resolved, and answered 500 (the gateway
   * sends it again) when it rejects.
   */
  keep?: (report: DeliveryReport, campaign: string | undefined) => Promise<void>;
  limits?: Partial<ReceiverLimits>;
}

/** The path a load balancer or an orchestrator asks whether the receiver is up. */
export const HEALTH_PATH = '/healthz';

/** A request answered with 4xx; it is in the log too. */
export interface MalformedRequest {
  method: string;
  path: string;
  reason: string;
  httpStatus: number;
}

export interface ReceiverEvents {
  report: [DeliveryReport];
  /** A report answered 200 that changes nothing: no valid proof, or a status that does not parse. */
  refused: [DeliveryReport, ProofRefusal];
  malformed: [MalformedRequest];
  /** After each attempt to fold into the report, done or deferred. */
  fold: [FoldResult];
  /** The log could not be written; the request was answered 500 so the gateway sends it again. */
  logFailed: [Error];
  /** The report could not be kept (the store did not answer); answered 500 as well. */
  keepFailed: [Error];
}

export interface ReceiverCounts {
  /** Reports received (duplicates and unknown MessageIds included). */
  received: number;
  /** By status as sent; reports without one are under `withoutStatus`. */
  byStatus: Record<string, number>;
  withoutStatus: number;
  /** Requests answered 400, 405, 413 or 414. */
  malformed: number;
  /** Reports refused, by reason: they changed nothing. */
  refused: Record<ProofRefusal, number>;
  /** Refused or malformed requests not written to the log, past the limit per reason. */
  notLogged: number;
}

/** The DeliveryReportUrl to give sms-send: the receiver's URL with the vendor's placeholders. */
export function urlTemplate(baseUrl: string): string {
  return `${baseUrl}/dlr?msgid=[$MSGID]&status=[$STATUS]&timestamp=[$TIMESTAMP]`;
}

type BodyParams = { ok: true; params: Record<string, string> } | { ok: false; reason: string };

function stringParams(entries: Iterable<[string, unknown]>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of entries) {
    if (typeof value === 'string') params[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') params[key] = String(value);
    else if (typeof value === 'object' && value !== null) params[key] = JSON.stringify(value);
  }
  return params;
}

/**
 * A POST body's parameters: JSON (an object) by Content-Type, or a form by Content-Type; with
 * no Content-Type or text/plain, a body starting with `{` is JSON and anything else a form.
 */
export function paramsFromBody(contentType: string | undefined, body: string): BodyParams {
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  if (text.trim() === '') return { ok: true, params: {} };
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const sniff = media === '' || media === 'text/plain';
  const json =
    media === 'application/json' ||
    media === 'text/json' ||
    media.endsWith('+json') ||
    (sniff && /^\s*[{[]/.test(text));
  if (json) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, reason: 'body is not valid JSON' };
    }
    if (!isPlainObject(value)) return { ok: false, reason: 'JSON body is not an object' };
    return { ok: true, params: stringParams(Object.entries(value)) };
  }
  if (media === 'application/x-www-form-urlencoded' || sniff) {
    return { ok: true, params: stringParams(new URLSearchParams(text)) };
  }
  return { ok: false, reason: `Content-Type ${media} is not accepted (JSON or a form)` };
}

/**
 * Receives delivery reports on node:http (GET query or POST JSON/form, any path), appends every
 * request to the log before answering, answers 200 (400 for a request with no message id or an
 * unreadable body), and folds the reports into the report at most once per interval while
 * there is something new, retrying later while the report is missing or a run holds its lock.
 */
export class DlrReceiver extends EventEmitter<ReceiverEvents> {
  readonly counts: ReceiverCounts = {
    received: 0,
    byStatus: {},
    withoutStatus: 0,
    malformed: 0,
    refused: noRefusals(),
    notLogged: 0,
  };
  readonly book = new DeliveryBook();
  /** The latest fold's result. */
  lastFold: FoldResult | undefined;
  /** Rows every fold of this session turned from `unknown` into `accepted`. */
  confirmed = 0;
  private readonly server: http.Server;
  private readonly open = new Set<http.ServerResponse>();
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private folding: Promise<void> | undefined;
  private identity: string | undefined;
  private stopping: Promise<FoldResult | undefined> | undefined;
  private boundPort = 0;
  private readonly limits: ReceiverLimits;
  /** Refused and malformed lines logged so far, per reason. */
  private readonly logged = new Map<string, number>();

  private constructor(
    private readonly options: ReceiverOptions,
    private readonly log: DlrLog | undefined,
  ) {
    super();
    const limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.limits = limits;
    this.server = http.createServer(
      {
        keepAlive: true,
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        // Timeouts are enforced when connections are checked: often enough to matter.
        connectionsCheckingInterval: Math.max(10, Math.min(1000, limits.headersTimeoutMs / 4)),
        maxHeaderSize: Math.max(limits.maxTargetBytes + 1024, 4096),
      },
      (req, res) => this.handle(req, res),
    );
    this.server.maxConnections = limits.maxConnections;
    this.server.on('connection', (socket) => socket.on('error', () => undefined));
  }

  /** Opens the log and listens; rejects when the port cannot be bound (the log is closed again). */
  static async start(options: ReceiverOptions): Promise<DlrReceiver> {
    const log = options.logPath === undefined ? undefined : await DlrLog.open(options.logPath);
    const receiver = new DlrReceiver(options, log);
    try {
      await receiver.listen();
    } catch (error) {
      await log?.close();
      throw error;
    }
    return receiver;
  }

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    const host = this.options.host ?? '127.0.0.1';
    return `http://${host.includes(':') ? `[${host}]` : host}:${this.boundPort}`;
  }

  get template(): string {
    return urlTemplate(this.url);
  }

  /** Answers 200 while the receiver is up (a Kubernetes probe, a load balancer's check). */
  get healthUrl(): string {
    return `${this.url}${HEALTH_PATH}`;
  }

  private listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => {
        this.server.off('error', reject);
        const address = this.server.address();
        this.boundPort = typeof address === 'object' && address !== null ? address.port : 0;
        this.timer = setInterval(() => this.tick(), this.options.updateIntervalMs ?? 1000);
        resolve();
      });
    });
  }

  /**
   * Stops listening, lets requests in progress finish (for up to 2 s), folds what is new into
   * the report one last time and closes the log. Returns the latest fold's result.
   */
  stop(): Promise<FoldResult | undefined> {
    this.stopping ??= (async () => {
      clearInterval(this.timer);
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.server.closeIdleConnections();
      const deadline = systemClock.now() + STOP_GRACE_MS;
      while (this.open.size > 0 && systemClock.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      this.server.closeAllConnections();
      await closed;
      await this.folding;
      if (this.book.size > 0 && (this.dirty || (await this.reportChanged()))) {
        await this.fold();
      }
      await this.log?.close();
      return this.lastFold;
    })();
    return this.stopping;
  }

  private tick(): void {
    if (this.folding || this.stopping) return;
    this.folding = this.foldIfNeeded().finally(() => (this.folding = undefined));
  }

  private async foldIfNeeded(): Promise<void> {
    if (this.book.size === 0 || this.options.reportPath === undefined) return;
    // Also after a run rewrote the report (--force, --resume) and dropped the columns.
    if (this.dirty || (await this.reportChanged())) await this.fold();
  }

  private async fold(): Promise<void> {
    if (this.options.reportPath === undefined) return;
    this.dirty = false;
    const result = await foldIntoReport(this.options.reportPath, this.book);
    // The identity of the report as the fold read or wrote it: a change after that is noticed.
    if (result.kind === 'deferred') this.dirty = true;
    else {
      this.identity = result.identity;
      this.confirmed += result.confirmed;
    }
    this.lastFold = result;
    this.emit('fold', result);
  }

  private async reportChanged(): Promise<boolean> {
    if (this.options.reportPath === undefined) return false;
    try {
      return fileIdentity(await stat(this.options.reportPath)) !== this.identity;
    } catch {
      return this.identity !== undefined;
    }
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    const receivedAt = new Date(systemClock.now()).toISOString();
    const method = req.method ?? '';
    const target = req.url ?? '/';
    const at = target.indexOf('?');
    const path = (at < 0 ? target : target.slice(0, at)).slice(0, 256);
    if (Buffer.byteLength(target) > this.limits.maxTargetBytes) {
      req.resume();
      const reason = `path and query longer than ${this.limits.maxTargetBytes} bytes`;
      this.reject(res, { receivedAt, method, path }, {}, 414, reason);
      return;
    }
    const query = stringParams(new URLSearchParams(at < 0 ? '' : target.slice(at + 1)));
    const base = { receivedAt, method, path };

    if (method === 'GET' && path === HEALTH_PATH) {
      this.answer(res, 200, 'OK');
      return;
    }
    if (method === 'GET') {
      this.accept(res, base, query);
      return;
    }
    if (method !== 'POST') {
      req.resume();
      this.reject(res, base, query, 405, `method ${method} is not accepted (GET or POST)`);
      return;
    }
    const cap = this.limits.maxBodyBytes;
    void readCappedBody(req, cap).then((read) => {
      // A client that goes away mid-body sent nothing complete.
      if (read.kind === 'aborted') return;
      if (read.kind === 'too-large') {
        this.reject(res, base, query, 413, `body larger than ${cap} bytes`);
        return;
      }
      const body = read.body.toString('utf8');
      const parsed = paramsFromBody(req.headers['content-type'], body);
      if (!parsed.ok) {
        this.reject(res, base, query, 400, parsed.reason, body);
        return;
      }
      // Body parameters win over query parameters of the same name.
      this.accept(res, base, { ...query, ...parsed.params }, body);
    });
  }

  private accept(
    res: http.ServerResponse,
    base: Pick<LogLine, 'receivedAt' | 'method' | 'path'>,
    params: Record<string, string>,
    body?: string,
  ): void {
    const parsed = reportFromParams(params, base.receivedAt);
    if (!parsed.ok) {
      this.reject(res, base, params, 400, parsed.reason, body);
      return;
    }
    const { report } = parsed;
    const verdict: ProofVerdict | Promise<ProofVerdict> = this.options.verify?.(report) ?? {
      ok: true,
    };
    if (verdict instanceof Promise) {
      void verdict.then(
        (settled) => this.decide(res, base, params, report, settled),
        (error: unknown) =>
          this.undecided(res, { ...base, messageId: report.messageId, params }, error),
      );
    } else this.decide(res, base, params, report, verdict);
  }

  /**
   * A report the verifier could not judge (the campaign store did not answer): logged as it came,
   * answered 500 so the gateway sends it again, and neither taken nor refused.
   */
  private undecided(res: http.ServerResponse, line: LogLine, error: unknown): void {
    this.emit('keepFailed', error instanceof Error ? error : new Error(String(error)));
    const answer = () => this.answer(res, 500, 'could not record the report; send it again');
    this.appendCapped('undecided', line).then(answer, answer);
  }

  /** Takes a report the verifier let through; a refused one is answered 200 and changes nothing. */
  private decide(
    res: http.ServerResponse,
    base: Pick<LogLine, 'receivedAt' | 'method' | 'path'>,
    params: Record<string, string>,
    report: DeliveryReport,
    verdict: ProofVerdict,
  ): void {
    if (!verdict.ok) {
      this.counts.refused[verdict.reason]++;
      this.emit('refused', report, verdict.reason);
      const line: LogLine = {
        ...base,
        messageId: report.messageId,
        refused: verdict.reason,
        params,
      };
      this.appendCapped(verdict.reason, line).then(
        () => this.answer(res, 200, 'OK'),
        () => this.answer(res, 200, 'OK'),
      );
      return;
    }
    // Counted and booked now, in arrival order, the same order as the log's lines.
    this.counts.received++;
    if (report.status === undefined) this.counts.withoutStatus++;
    else this.counts.byStatus[report.status] = (this.counts.byStatus[report.status] ?? 0) + 1;
    if (this.book.add(report)) this.dirty = true;
    this.emit('report', report);
    const line: LogLine = {
      ...base,
      messageId: report.messageId,
      status: report.status,
      timestamp: report.timestamp,
      transactionId: report.transactionId,
      params,
    };
    const failed = (event: 'logFailed' | 'keepFailed') => (error: unknown) => {
      this.emit(event, error instanceof Error ? error : new Error(String(error)));
      throw error;
    };
    const kept =
      this.options.keep && report.status !== undefined
        ? this.options.keep(report, verdict.campaign).catch(failed('keepFailed'))
        : undefined;
    Promise.all([this.append(line).catch(failed('logFailed')), kept]).then(
      () => this.answer(res, 200, 'OK'),
      () => this.answer(res, 500, 'could not record the report; send it again'),
    );
  }

  private reject(
    res: http.ServerResponse,
    base: Pick<LogLine, 'receivedAt' | 'method' | 'path'>,
    params: Record<string, string>,
    httpStatus: number,
    reason: string,
    body?: string,
  ): void {
    this.counts.malformed++;
    this.emit('malformed', { method: base.method, path: base.path, reason, httpStatus });
    const line: LogLine = { ...base, malformed: reason, params };
    if (body !== undefined && body !== '') line.body = body.slice(0, LOGGED_BODY_CHARS);
    const answer = () =>
      this.answer(res, httpStatus, reason, httpStatus >= 413 ? { Connection: 'close' } : {});
    this.appendCapped(String(httpStatus), line).then(answer, (error: unknown) => {
      this.emit('logFailed', error instanceof Error ? error : new Error(String(error)));
      answer();
    });
  }

  private append(line: LogLine): Promise<void> {
    return this.log ? this.log.append(line) : Promise.resolve();
  }

  /**
   * The first lines of each kind (a refusal's reason, a malformed request's HTTP status) are
   * logged; past the limit a flood is only counted.
   */
  private appendCapped(kind: string, line: LogLine): Promise<void> {
    const logged = this.logged.get(kind) ?? 0;
    if (logged >= this.limits.loggedPerReason) {
      this.counts.notLogged++;
      return Promise.resolve();
    }
    this.logged.set(kind, logged + 1);
    return this.append(line);
  }

  private answer(
    res: http.ServerResponse,
    httpStatus: number,
    text: string,
    headers: http.OutgoingHttpHeaders = {},
  ): void {
    if (res.destroyed || res.writableEnded) return;
    const payload = `${text}\n`;
    res.writeHead(httpStatus, {
      ...headers,
      ...(httpStatus === 405 ? { Allow: 'GET, POST' } : {}),
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': Buffer.byteLength(payload),
    });
    res.end(payload);
  }
}
