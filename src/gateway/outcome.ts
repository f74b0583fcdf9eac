// Turns one HTTP exchange into per-message results, or a batch-level verdict: retry, failed, unknown.
import type { Exchange } from './exchange.js';
import { systemClock } from '../shared/clock.js';
import { isTimeout, plainWords } from './words.js';
import { SIMULATOR_HEADER, type RestSmsMessageResp, type RestSmsResponse } from './types.js';

/**
 * What the gateway's answer says about one message: its StatusCode decides accepted or rejected,
 * and a message the answer does not cover is unknown. The other outcomes are decided elsewhere.
 */
export interface GatewayResult {
  outcome: 'accepted' | 'rejected' | 'unknown';
  statusCode?: number;
  statusDescription?: string;
  transactionId?: string;
  extraInfo?: Record<string, string>;
  error?: string;
}

/**
 * - results: the gateway answered per message.
 * - retry: the gateway surely did not process the request; sending again is safe.
 * - failed: it surely did not process it, and sending again will not help.
 * - unknown: it may have processed it; sending again could deliver twice.
 */
export type Verdict =
  | { kind: 'results'; results: GatewayResult[] }
  | {
      kind: 'retry';
      reason: string;
      retryAfterMs?: number;
      /** Nothing listens there, or the name does not resolve: the endpoint itself may be wrong. */
      unreachable?: true;
    }
  | {
      kind: 'failed';
      reason: string;
      authRefused: boolean;
      /** No request can get through until someone changes something (a certificate, a proxy's mind): the run stops. */
      stop?: boolean;
    }
  | { kind: 'unknown'; reason: string };

/** Network errors raised before a connection existed, so nothing reached the gateway. */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/** Of those, the ones a wrong endpoint gives (or a gateway not started yet): said at once. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** A certificate the TLS handshake refused: nothing was sent, and sending again changes nothing. */
const CERTIFICATE = new Set([
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Certificates a CA the user names would make trusted (a private gateway's, a proxy that re-signs). */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/** A dropped connection: harmless before the request was fully written, ambiguous after. */
const CONNECTION_LOST = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

const ABORTED = new Set(['UND_ERR_ABORTED', 'ABORT_ERR', 'ABORTED']);

const AUTH_WORDS = /auth|credential|login|password|username|unauthori[sz]ed|forbidden/i;

/**
 * The one place that decides what an exchange means for its messages. `messageIds` are the
 * MessageIds of the request's items, in order. `redact` masks secrets in a response body before
 * it is cut to an excerpt: once cut or flattened, an echoed password might no longer be found.
 */
export function classify(
  exchange: Exchange,
  messageIds: readonly string[],
  now: number = systemClock.now(),
  redact: (text: string) => string = (text) => text,
): Verdict {
  if (exchange.kind === 'error') return errorVerdict(exchange);
  const { status } = exchange;
  if (status === 401 || status === 403) {
    return { kind: 'failed', reason: `credentials refused (HTTP ${status})`, authRefused: true };
  }
  if (status === 408 || status === 429 || status === 503) {
    return {
      kind: 'retry',
      reason: `HTTP ${status}`,
      retryAfterMs: parseRetryAfter(exchange.headers['retry-after'], now),
    };
  }
  if (status >= 500) return { kind: 'unknown', reason: `HTTP ${status} from the gateway` };
  if (status < 200 || status >= 300) {
    return {
      kind: 'failed',
      reason: `HTTP ${status}: ${snippet(redact(exchange.body))}`,
      authRefused: false,
    };
  }

  let response: RestSmsResponse;
  try {
    response = JSON.parse(exchange.body) as RestSmsResponse;
  } catch {
    return {
      kind: 'unknown',
      reason: `malformed response body: ${snippet(redact(exchange.body))}`,
    };
  }
  if (
    typeof response !== 'object' ||
    response === null ||
    typeof response.ProcessResult !== 'boolean'
  ) {
    return {
      kind: 'unknown',
      reason: `response without ProcessResult: ${snippet(redact(exchange.body))}`,
    };
  }
  if (!response.ProcessResult) {
    const description = response.ProcessResultDescription ?? 'ProcessResult false';
    return {
      kind: 'failed',
      reason: `gateway refused the request: ${description}`,
      authRefused: AUTH_WORDS.test(description),
    };
  }
  if (response.Messages !== undefined && !Array.isArray(response.Messages)) {
    return { kind: 'unknown', reason: 'response Messages is not an array' };
  }
  return { kind: 'results', results: matchResults(response.Messages ?? [], messageIds) };
}

/** What an exchange that ended without an answer means: sent again, failed, or unknown. */
function errorVerdict(exchange: Extract<Exchange, { kind: 'error' }>): Verdict {
  const { code, requestSent } = exchange;
  const words = plainWords(code, exchange.message, exchange.timeoutMs);
  if (code.startsWith('PROXY_')) return proxyVerdict(code, exchange);
  if (CERTIFICATE.has(code)) return certificateVerdict(code, words, exchange);
  const via = exchange.proxy === undefined ? '' : ` (through the proxy ${exchange.proxy})`;
  if (ABORTED.has(code)) {
    return requestSent
      ? { kind: 'unknown', reason: 'aborted while waiting for the answer' }
      : { kind: 'failed', reason: 'aborted before sending', authRefused: false };
  }
  if (NOT_CONNECTED.has(code) || (code === 'TIMEOUT' && !requestSent)) {
    // The deadline passed before the request was written: it never left, like a connect timeout.
    const reason =
      code === 'TIMEOUT'
        ? plainWords('UND_ERR_CONNECT_TIMEOUT', exchange.message, exchange.timeoutMs)
        : words;
    return UNREACHABLE.has(code)
      ? { kind: 'retry', reason: `${reason}${via}`, unreachable: true }
      : { kind: 'retry', reason: `${reason}${via}` };
  }
  if (CONNECTION_LOST.has(code) && !requestSent) {
    return { kind: 'retry', reason: `${words} before the request was sent${via}` };
  }
  if (isTimeout(code)) return { kind: 'unknown', reason: words };
  const when = requestSent ? 'after the request was sent' : 'during the request';
  return { kind: 'unknown', reason: `${words} ${when}` };
}

/**
 * A proxy's 407, with the fix that fits: the credentials its URL gave were refused, or it was
 * given none; either way named where the proxy came from (`shown` ends with it, in brackets).
 */
function proxyWantsCredentials(proxy: string, shown: string): string {
  // `url (where it came from)`: a URL has no space, so the first one ends it.
  const space = shown.indexOf(' (');
  const url = space < 0 ? shown : shown.slice(0, space);
  const named = space < 0 ? '--proxy' : shown.slice(space + 2, -1);
  const from = named.replace(/^proxy \((.+)\)$/, 'the proxy setting in $1');
  const refused = 'HTTP 407 Proxy Authentication Required';
  if (/^[a-z][\w+.-]*:\/\/[^/]*@/i.test(url)) {
    return `${proxy} refused the credentials in its URL (${refused}): check the user name and password given in ${from}`;
  }
  return `${proxy} wants credentials (${refused}): give them in its URL, http://user:password@host:port, in ${from}`;
}

/**
 * A proxy's own refusal of the tunnel or the request, said as the proxy's, with what fixes it.
 * The tunnel never opened, so nothing reached the gateway: the proxy's credentials or rules stop
 * the run at once; a proxy that could not reach the gateway is an outage like the gateway's own.
 */
function proxyVerdict(code: string, exchange: Extract<Exchange, { kind: 'error' }>): Verdict {
  const proxy = `the proxy ${exchange.proxy ?? ''}`.trimEnd();
  const status = code.slice('PROXY_'.length);
  if (status === '407') {
    return {
      kind: 'failed',
      reason: proxyWantsCredentials(proxy, exchange.proxy ?? ''),
      authRefused: false,
      stop: true,
    };
  }
  if (status === 'TLS') {
    return {
      kind: 'failed',
      reason: `${proxy}'s TLS certificate is not for its name`,
      authRefused: false,
      stop: true,
    };
  }
  if (status === '502' || status === '503' || status === '504') {
    return { kind: 'retry', reason: `${proxy} could not reach the gateway (HTTP ${status})` };
  }
  return {
    kind: 'failed',
    reason: `${proxy} refused to connect to the gateway (HTTP ${status}); its administrator decides what it lets through`,
    authRefused: false,
    stop: true,
  };
}

/** A certificate refused, naming the host it was for and, when a CA would fix it, which setting. */
function certificateVerdict(
  code: string,
  words: string,
  exchange: Extract<Exchange, { kind: 'error' }>,
): Verdict {
  const host = exchange.host === undefined ? '' : ` (${exchange.host})`;
  const fix = UNTRUSTED.has(code)
    ? ': if a private CA signs it, name that CA with --ca-file (caFile, SMS_SEND_CA_FILE) or NODE_EXTRA_CA_CERTS'
    : code === 'ERR_TLS_CERT_ALTNAME_INVALID'
      ? otherNameFix(exchange.certNames ?? namesInMessage(exchange.message))
      : '';
  return { kind: 'failed', reason: `${words}${host}${fix}`, authRefused: false, stop: true };
}

/**
 * The names a certificate for another host carries, from Node's message when the client could not
 * read the certificate (tls.checkServerIdentity: "… is not in the cert's altnames: DNS:other.example",
 * "… cert's list: …" for an IP address, which lists only the IP addresses it carries, "… is not
 * cert's CN: …" without altnames).
 */
function namesInMessage(message: string): string | undefined {
  return /cert's (?:altnames|list|CN): (.+)$/.exec(message)?.[1]?.trim();
}

/** What a certificate for another host is for, and what fixes it: the endpoint by one of its names. */
function otherNameFix(names: string | undefined): string {
  const carried = names ? `: it is for ${names}` : '';
  return `${carried}; give --endpoint by a name the certificate carries, or have the gateway's certificate name this host`;
}

/**
 * Results match requests by position (rule 1), cross-checked by MessageId (rule 2). When the counts
 * differ, each request is matched by its MessageId instead; any request left without its own
 * result is `unknown`, since the gateway may or may not have taken it.
 */
export function matchResults(
  results: readonly RestSmsMessageResp[],
  messageIds: readonly string[],
): GatewayResult[] {
  if (results.length === messageIds.length) {
    return messageIds.map((id, i) => {
      const result = results[i]!;
      if (result.MessageId && id && result.MessageId !== id) {
        return {
          outcome: 'unknown',
          error: `result ${i + 1} names MessageId ${result.MessageId}, expected ${id}`,
        };
      }
      return fromResp(result);
    });
  }
  const byId = new Map<string, RestSmsMessageResp>();
  for (const result of results) if (result.MessageId) byId.set(result.MessageId, result);
  const mismatch = `the gateway returned ${results.length} results for ${messageIds.length} messages`;
  return messageIds.map((id) => {
    const result = id ? byId.get(id) : undefined;
    return result ? fromResp(result) : { outcome: 'unknown', error: mismatch };
  });
}

function fromResp(result: RestSmsMessageResp): GatewayResult {
  const accepted = result.StatusCode === 0;
  const out: GatewayResult = {
    outcome: accepted ? 'accepted' : 'rejected',
    statusCode: result.StatusCode,
    statusDescription: result.StatusDescription,
    transactionId: result.TransactionId,
  };
  if (result.ExtraInfo && Object.keys(result.ExtraInfo).length) out.extraInfo = result.ExtraInfo;
  return out;
}

/** Retry-After is either delay-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function parseRetryAfter(
  value: string | undefined,
  now: number = systemClock.now(),
): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only an HTTP-date (it names a weekday or month); V8 would read "1.5" or "-1" as a date too.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function snippet(body: string): string {
  const flat = body.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat || '(empty body)';
}

/**
 * What the send loop gets back for one request: the verdict with every text in it already masked,
 * and the few HTTP facts it reports or acts on. The send loop never sees a raw body.
 */
export interface Answer {
  verdict: Verdict;
  /** "HTTP 503", "ECONNREFUSED": for progress lines and the journal. */
  status: string;
  /** The HTTP status, when there was an answer at all. */
  httpStatus?: number;
  latencyMs: number;
  /** The gateway said 429: every connection pauses, and the rate is halved. */
  throttled: boolean;
  /** From a response body that has them (sms-send check shows them). */
  processResult?: boolean;
  processResultDescription?: string;
  /** sms-send's simulator answered (its header): the run is a rehearsal. */
  simulator?: true;
}

/** Classifies an exchange and masks secrets in every text the verdict carries. */
export function answerOf(
  exchange: Exchange,
  messageIds: readonly string[],
  now: number,
  redact: (text: string) => string,
): Answer {
  const verdict = classify(exchange, messageIds, now, redact);
  const answer: Answer = {
    verdict:
      verdict.kind === 'results'
        ? { kind: 'results', results: redactResults(verdict.results, redact) }
        : { ...verdict, reason: redact(verdict.reason) },
    status: exchange.kind === 'response' ? `HTTP ${exchange.status}` : exchange.code,
    latencyMs: exchange.latencyMs,
    throttled: exchange.kind === 'response' && exchange.status === 429,
  };
  if (exchange.kind === 'response') {
    answer.httpStatus = exchange.status;
    if (exchange.headers[SIMULATOR_HEADER] !== undefined) answer.simulator = true;
    // Results mean classify() found ProcessResult true; the body need not be read twice.
    if (verdict.kind === 'results') {
      answer.processResult = true;
      return answer;
    }
    try {
      const body = JSON.parse(exchange.body) as Partial<RestSmsResponse>;
      if (typeof body.ProcessResult === 'boolean') answer.processResult = body.ProcessResult;
      if (typeof body.ProcessResultDescription === 'string') {
        answer.processResultDescription = redact(body.ProcessResultDescription);
      }
    } catch {
      // The verdict already says the body was malformed.
    }
  }
  return answer;
}

/**
 * A gateway that echoes the request could put the password in any text it returns. Every text of
 * the results is looked at once, joined by a character no secret form holds; only when that shows
 * a secret is each field masked (most answers hold none, and a batch has a hundred results).
 */
function redactResults(
  results: readonly GatewayResult[],
  redact: (text: string) => string,
): GatewayResult[] {
  const all = textsOfResults(results);
  if (redact(all) === all) return [...results];
  return results.map((r) => redactResult(r, redact));
}

/**
 * Masks every field of one result, whatever fields a result has: a list of the fields to mask
 * would let a field added later through unmasked. Only the outcome is sms-send's own word.
 */
function redactResult(result: GatewayResult, redact: (text: string) => string): GatewayResult {
  const out: Record<string, unknown> = { outcome: result.outcome };
  for (const [key, value] of gatewayFields(result)) out[key] = masked(value, redact);
  return out as unknown as GatewayResult;
}

function gatewayFields(result: GatewayResult): [string, unknown][] {
  return Object.entries(result).filter(([key]) => key !== 'outcome');
}

/**
 * Every text of the results' gateway fields, keys included, numbers as written, joined by NUL: one
 * string a redactor scans once for a batch. Built in one pass without an array per field, as this
 * runs for every answer of a send.
 */
function textsOfResults(results: readonly GatewayResult[]): string {
  let all = '';
  let first = true;
  const add = (text: string) => {
    all = first ? text : `${all}\0${text}`;
    first = false;
  };
  const visit = (key: string, value: unknown) => {
    add(key);
    if (typeof value !== 'object' || value === null) return add(String(value));
    for (const k in value)
      if (Object.hasOwn(value, k)) visit(k, (value as Record<string, unknown>)[k]);
  };
  for (const result of results) {
    for (const key in result) {
      if (key !== 'outcome' && Object.hasOwn(result, key)) {
        visit(key, (result as unknown as Record<string, unknown>)[key]);
      }
    }
  }
  return all;
}

/** A value with each text in it masked; a number that spells a secret becomes masked text. */
function masked(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(([k, v]) => [redact(k), masked(v, redact)]);
    return Array.isArray(value) ? entries.map(([, v]) => v) : Object.fromEntries(entries);
  }
  const text = String(value);
  const safe = redact(text);
  return typeof value === 'string' || safe !== text ? safe : value;
}
