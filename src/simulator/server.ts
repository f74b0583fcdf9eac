// The simulator's HTTP front: routing, format selection, JSONP, body limits, fault timing and answers.
import { SIMULATOR_HEADER } from '../gateway/types.js';
import { systemClock } from '../shared/clock.js';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { RestSmsMessageResp, RestSmsResponse } from '../gateway/types.js';
import { acceptMessages } from './accept.js';
import type { DeliveryReporter } from './dlr.js';
import { decideFaults, type FaultOptions, type RequestFaults } from './faults.js';
import type { BoundedLog, LedgerEntry, MutableRequestRecord, RequestOutcome } from './ledger.js';
import { readCappedBody } from '../shared/body.js';
import { decimal } from '../shared/digits.js';
import { isPlainObject } from '../shared/plain-object.js';
import { foldKeys, type FoldedFields } from './rules.js';
import type { LedgerBook, LedgerStats } from './book.js';

/** Larger bodies get 413: far above 100 messages of 1024 characters, far below a memory problem. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

const OPERATION = /^\/json\/reply\/restsmsrequest(?:\.([a-z0-9]+))?$/i;
const CALLBACK = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
const CALLBACK_MAX = 128;
const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

/** Everything the request handler needs from the simulator that owns it. */
export interface ServerContext {
  readonly seed: number;
  readonly serverName: string;
  readonly ledger: BoundedLog<LedgerEntry>;
  readonly requests: BoundedLog<MutableRequestRecord>;
  readonly reporter: DeliveryReporter | undefined;
  faults(): FaultOptions;
  checkCredentials(request: FoldedFields): string | undefined;
  /** Served over TLS with this key and certificate (PEM), as a real gateway is. */
  readonly tls?: { key: string; cert: string };
  /** Every answer says it comes from a simulator: a campaign sent here is a rehearsal. */
  readonly rehearsal: boolean;
  /** TransactionIds of 32 random hex digits instead of a prefix and a counter. */
  readonly randomTransactionIds: boolean;
  /** Every accepted message written down and its MessageId counted (`--ledger FILE`). */
  readonly book?: LedgerBook;
}

/** Numbers instances so two simulators in one process never share a TransactionId prefix. */
let instances = 0;

/**
 * Whether an Accept header lets us answer JSON: absent, application/json, application/*, * /*
 * (or text/json, +json types; JavaScript types too when JSONP was asked for), with q > 0.
 */
export function acceptsJson(accept: string | undefined, jsonp: boolean): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';');
    const media = type.trim().toLowerCase();
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    if (
      media === 'application/json' ||
      media === 'application/*' ||
      media === '*/*' ||
      media === 'text/json' ||
      media.endsWith('+json')
    ) {
      return true;
    }
    if (jsonp && (media === 'application/javascript' || media === 'text/javascript')) return true;
  }
  return false;
}

function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined || contentType.trim() === '') return true;
  const media = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return media === 'application/json' || media === 'text/json' || media.endsWith('+json');
}

/** ServiceStack's error body shape, so a client sees what the real server would send. */
function errorBody(errorCode: string, message: string): object {
  return { ResponseStatus: { ErrorCode: errorCode, Message: message } };
}

/** An answer waiting for its latency: a JSON body (JSONP-wrapped when `jsonp` is set) or plain text. */
interface Answer {
  status: number;
  headers?: http.OutgoingHttpHeaders;
  json?: object;
  text?: string;
  /** Set only for RestSmsResponse bodies: error bodies keep their status and are never wrapped. */
  jsonp?: string | null;
}

/** The two ways the simulator turns a request away before processing it, with Retry-After. */
const TURNED_AWAY = {
  unavailable: [503, 'ServiceUnavailable', 'service unavailable'],
  'rate-limited': [429, 'TooManyRequests', 'rate limit exceeded'],
} as const;

/** Serves one simulator on node:http and owns its sockets and timers so stop() leaves nothing behind. */
/** Where a request's answer goes, and how it is answered. */
interface Answered {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  record: MutableRequestRecord;
  delayMs: number;
  /** The JSONP callback the request named, if any. */
  callback: string | null;
}

export class SimulatorServer {
  private readonly server: http.Server;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private seq = 0;
  private transactions = 0;
  private readonly idPrefix: string;
  private stopping: Promise<void> | undefined;

  constructor(private readonly context: ServerContext) {
    instances += 1;
    // Random part: distinct across processes; instance number: distinct within one process.
    this.idPrefix = `${randomBytes(4).toString('hex')}${instances.toString(36)}-`;
    const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (!this.servedStats(req, res)) this.handle(req, res);
    };
    const options = { keepAlive: true, noDelay: true };
    this.server = context.tls
      ? https.createServer({ ...options, ...context.tls }, handle)
      : http.createServer(options, handle);
    this.server.keepAliveTimeout = 30_000;
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      // A client may vanish at any moment (that is half the point); never crash on it.
      socket.on('error', () => undefined);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const address = this.server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : port);
      });
    });
  }

  /** Closes the listener and destroys every socket, hung ones included; safe to call twice. */
  stop(): Promise<void> {
    this.stopping ??= new Promise((resolve) => {
      for (const timer of this.timers) clearTimeout(timer);
      this.timers.clear();
      this.context.reporter?.stop();
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
    return this.stopping;
  }

  /** `GET /stats`, answered at once and kept out of the request log: it asks, it sends nothing. */
  private servedStats(req: http.IncomingMessage, res: http.ServerResponse): boolean {
    if (req.method !== 'GET' || req.url !== '/stats') return false;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.stats()));
    return true;
  }

  /** What `GET /stats` answers: accepted messages, and with a ledger file their MessageIds. */
  stats(): LedgerStats {
    const accepted = this.context.ledger.count;
    return this.context.book?.stats(accepted) ?? { accepted };
  }

  private nextTransactionId(): string {
    if (this.context.randomTransactionIds) return randomBytes(16).toString('hex');
    this.transactions += 1;
    return this.idPrefix + decimal(this.transactions);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const seq = ++this.seq;
    const target = req.url ?? '/';
    const record: MutableRequestRecord = {
      seq,
      method: req.method ?? '',
      path: target,
      messageCount: 0,
      accepted: 0,
      outcome: 'pending',
    };
    this.context.requests.push(record);
    const faults = decideFaults(this.context.faults(), this.context.seed, seq);

    const queryAt = target.indexOf('?');
    const pathname = queryAt < 0 ? target : target.slice(0, queryAt);
    const query = new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1));
    const route = OPERATION.exec(pathname);
    if (!route) {
      this.answer(res, record, 'not-found', faults.delayMs, {
        status: 404,
        text: `Not found: this simulator serves only POST /json/reply/RestSmsRequest\n`,
      });
      return;
    }
    if (req.method !== 'POST') {
      this.answer(res, record, 'method-not-allowed', faults.delayMs, {
        status: 405,
        headers: { Allow: 'POST' },
        text: `Method ${req.method ?? ''} not allowed: RestSmsRequest is POST only\n`,
      });
      return;
    }
    const callback = query.get('callback');
    if (callback !== null && (callback.length > CALLBACK_MAX || !CALLBACK.test(callback))) {
      this.answer(res, record, 'bad-callback', faults.delayMs, {
        status: 400,
        json: errorBody(
          'ArgumentException',
          'Invalid JSONP callback name: expected a JavaScript identifier path such as a.b_c$1',
        ),
      });
      return;
    }
    const suffix = route[1]?.toLowerCase();
    const format = query.get('format')?.toLowerCase() || undefined;
    // Explicit selectors (suffix, format=) outrank Accept; any explicit JSON choice wins.
    const json =
      suffix === 'json' ||
      format === 'json' ||
      (suffix === undefined &&
        format === undefined &&
        acceptsJson(req.headers.accept, callback !== null));
    if (!json) {
      this.answer(res, record, 'not-acceptable', faults.delayMs, {
        status: 406,
        text: 'Not acceptable: this simulator answers JSON only (Accept: application/json, the .json suffix or format=json)\n',
      });
      return;
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      this.answer(res, record, 'unsupported-media-type', faults.delayMs, {
        status: 415,
        json: errorBody(
          'NotSupportedException',
          `Content-Type ${req.headers['content-type'] ?? ''} is not supported: send application/json`,
        ),
      });
      return;
    }
    void readCappedBody(req, MAX_BODY_BYTES).then((read) => {
      if (read.kind === 'too-large') {
        this.tooLarge(res, record, faults.delayMs);
      } else if (read.kind === 'aborted') {
        if (record.outcome === 'pending') record.outcome = 'aborted';
      } else {
        const text = read.body.toString('utf8');
        // .NET clients may prefix a BOM; the real server reads past it.
        const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
        this.process(req, res, record, faults, json, callback);
      }
    });
  }

  private tooLarge(res: http.ServerResponse, record: MutableRequestRecord, delayMs: number): void {
    this.answer(res, record, 'too-large', delayMs, {
      status: 413,
      // Closing spares us reading the rest of an oversized body.
      headers: { Connection: 'close' },
      json: errorBody(
        'RequestEntityTooLarge',
        `Request body larger than ${MAX_BODY_BYTES} bytes; send fewer messages per request`,
      ),
    });
  }

  private process(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    record: MutableRequestRecord,
    faults: RequestFaults,
    text: string,
    callback: string | null,
  ): void {
    // Parsed before the fault dice only so the record can count the messages.
    let parsed: unknown;
    let parseError: string | undefined;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      parseError = text.trim() === '' ? 'empty request body' : syntaxProblem(error, text);
    }
    const fields = isPlainObject(parsed) ? foldKeys(parsed) : undefined;
    const messages = fields?.['messages'];
    if (Array.isArray(messages)) record.messageCount = messages.length;
    const options = this.context.faults();
    const answered: Answered = { req, res, record, delayMs: faults.delayMs, callback };
    if (this.turnAway(answered, faults, String(options.retryAfterSeconds ?? 1))) return;
    if (this.refuse(answered, fields, messages, parseError, options)) return;
    const items: unknown[] = Array.isArray(messages) ? messages : [];
    this.respond(answered, faults, items);
  }

  /** The faults that strike before the request is looked at; true when one answered it. */
  private turnAway(
    { req, res, record, delayMs, callback }: Answered,
    faults: RequestFaults,
    retryAfter: string,
  ): boolean {
    switch (faults.before) {
      case 'unavailable':
      case 'rate-limited': {
        const [status, type, text] = TURNED_AWAY[faults.before];
        this.answer(res, record, String(status) as '503' | '429', delayMs, {
          status,
          headers: { 'Retry-After': retryAfter },
          json: errorBody(type, `Simulated fault: ${text}`),
        });
        return true;
      }
      case 'reset-before':
        this.reset(req, record, 'reset-before', delayMs);
        return true;
      case 'hang':
        // Never answered; stop() destroys the socket.
        record.outcome = 'hang';
        return true;
      case 'process-result-false':
        this.answer(res, record, 'process-result-false', delayMs, {
          status: 200,
          json: refusal('Simulated fault: the request was not processed'),
          jsonp: callback,
        });
        return true;
      case 'none':
        return false;
    }
  }

  /** A request the gateway refuses as a whole (bad body, credentials, too many messages). */
  private refuse(
    { res, record, delayMs, callback }: Answered,
    fields: FoldedFields | undefined,
    messages: unknown,
    parseError: string | undefined,
    options: ReturnType<ServerContext['faults']>,
  ): boolean {
    if (parseError !== undefined || fields === undefined) {
      this.answer(res, record, 'bad-request', delayMs, {
        status: 400,
        json: errorBody(
          'SerializationException',
          parseError !== undefined
            ? `Could not parse the request body as JSON: ${parseError}`
            : 'The request body must be a JSON object (RestSmsRequest)',
        ),
      });
      return true;
    }
    if (messages !== undefined && messages !== null && !Array.isArray(messages)) {
      this.answer(res, record, 'bad-request', delayMs, {
        status: 400,
        json: errorBody('SerializationException', 'Messages must be a JSON array'),
      });
      return true;
    }

    const authProblem = this.context.checkCredentials(fields);
    if (authProblem !== undefined) {
      this.answer(res, record, 'auth', delayMs, {
        status: options.authStatus ?? 200,
        json: refusal(authProblem),
        jsonp: callback,
      });
      return true;
    }
    const items: unknown[] = Array.isArray(messages) ? messages : [];
    const max = options.maxBatchSize;
    if (max !== undefined && items.length > max) {
      this.answer(res, record, 'max-batch', delayMs, {
        status: 200,
        json: refusal(`Too many messages in one request: ${items.length} (maximum ${max})`),
        jsonp: callback,
      });
      return true;
    }
    return false;
  }

  /** Takes the messages and answers, unless a fault after processing strikes. */
  private respond(
    { req, res, record, delayMs, callback }: Answered,
    faults: RequestFaults,
    items: unknown[],
  ): void {
    const response: RestSmsResponse = {
      ProcessResult: true,
      Messages: this.send(items, record, faults),
    };
    switch (faults.after) {
      case 'reset-after':
        this.reset(req, record, 'reset-after', delayMs);
        return;
      case 'error-after':
        this.answer(res, record, '500-after', delayMs, {
          status: 500,
          json: errorBody('InternalServerError', 'Simulated fault: error after processing'),
        });
        return;
      case 'none':
        this.answer(res, record, 'ok', delayMs, { status: 200, json: response, jsonp: callback });
    }
  }

  /** Books what acceptMessages accepted and schedules its delivery reports; returns the results. */
  private send(
    items: unknown[],
    record: MutableRequestRecord,
    faults: RequestFaults,
  ): RestSmsMessageResp[] {
    const { ledger, reporter, serverName } = this.context;
    const { results, accepted, reports } = acceptMessages(items, {
      serverName,
      request: record.seq,
      receivedAt: systemClock.now(),
      acceptedBefore: ledger.count,
      nextTransactionId: () => this.nextTransactionId(),
      rejectNext: () => faults.rejectNext(),
    });
    for (const entry of accepted) ledger.push(entry);
    this.context.book?.add(accepted);
    record.accepted += accepted.length;
    if (reporter) for (const subject of reports) reporter.schedule(subject);
    return results;
  }

  /** Runs now, or after the latency; stop() cancels what has not run yet. */
  private later(delayMs: number, run: () => void): void {
    if (delayMs <= 0) {
      run();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, delayMs);
    this.timers.add(timer);
  }

  private reset(
    req: http.IncomingMessage,
    record: MutableRequestRecord,
    outcome: RequestOutcome,
    delayMs: number,
  ): void {
    this.later(delayMs, () => {
      record.outcome = outcome;
      // An RST, not a FIN: what a crashed proxy or a dropped connection looks like to the client.
      if (!req.socket.destroyed) req.socket.resetAndDestroy();
    });
  }

  private answer(
    res: http.ServerResponse,
    record: MutableRequestRecord,
    outcome: RequestOutcome,
    delayMs: number,
    answer: Answer,
  ): void {
    this.later(delayMs, () => {
      record.outcome = outcome;
      if (res.destroyed || res.writableEnded) return;
      let payload: string;
      let type: string;
      if (answer.json !== undefined) {
        payload = JSON.stringify(answer.json);
        type = JSON_TYPE;
        if (answer.jsonp) {
          payload = `${answer.jsonp}(${payload});`;
          type = 'application/javascript; charset=utf-8';
        }
      } else {
        payload = answer.text ?? '';
        type = TEXT_TYPE;
      }
      res.writeHead(answer.status, {
        ...answer.headers,
        // A run sent to a rehearsal simulator is never taken for a real send.
        ...(this.context.rehearsal ? { [SIMULATOR_HEADER]: '1' } : {}),
        'Content-Type': type,
        'Content-Length': Buffer.byteLength(payload),
      });
      res.end(payload);
    });
  }
}

/**
 * V8's JSON.parse messages quote a slice of the input, which may hold the password; only the
 * position (or the byte count) leaves the simulator.
 */
function syntaxProblem(error: unknown, text: string): string {
  const position = /at position (\d+)/.exec(error instanceof Error ? error.message : '');
  return position
    ? `invalid JSON at position ${position[1]}`
    : `invalid JSON (${Buffer.byteLength(text)} bytes)`;
}

/** A request-level failure: ProcessResult false, a description, and no message results. */
function refusal(description: string): RestSmsResponse {
  return { ProcessResult: false, ProcessResultDescription: description, Messages: [] };
}
