// The only module that speaks HTTP: one undici Pool per run, one POST per batch, raw outcome back.
import { subscribe } from 'node:diagnostics_channel';
import type { Readable } from 'node:stream';
import { errors as undiciErrors, type Dispatcher } from 'undici';
import {
  closeWithin,
  openDispatcher,
  proxyRefusal,
  tracked,
  type DispatcherSettings,
  type Tracker,
} from './dispatcher.js';
import type { Exchange } from './exchange.js';
import { proxyFor, type Proxies } from './proxy.js';
import { answerOf, type Answer } from './outcome.js';
import { redactor, type Redact } from './redact.js';
import { OPERATION_PATH, type RestSmsRequest } from './types.js';
import { maskUrl } from '../shared/url.js';
import type { Clock } from '../shared/clock.js';

/** Where the client posts, and as whom: the run's gateway access (campaign/target.ts), read in place. */
export interface ClientAccess {
  endpoint: string;
  username: string;
  password: string;
}

/** The part of the run's resolved settings (config/settings.ts) the client reads, in place. */
export interface ClientSettings extends DispatcherSettings {
  /** The proxies a request may go through; proxyFor picks the endpoint's, if any. */
  proxies: Proxies;
}

// undici through its package entry, which also loads fetch, WebSocket, caches and mocks (more CPU
// and memory at start than the four modules a run uses, see docs/benchmark.md). Its files are not a promise: a global
// install resolves the version range afresh, and undici's security releases must be taken, so
// nothing here may depend on where a file sits. This module is itself loaded only when a run is
// about to send (campaign/target.ts), so --help, a dry run and the other commands pay nothing.

/**
 * The longest a close may take: it is called once the run's requests have ended, so it has nothing
 * to wait for but sockets; past this they are destroyed (see closeWithin).
 */
const CLOSE_BOUND_MS = 5_000;

/** Cap on a response body we are willing to hold: far above any real RestSmsResponse. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The TLS protocol of the latest connection to each host:port, for `sms-send check`. */
const tlsByHost = new Map<string, string>();
subscribe('undici:client:connected', (message) => {
  const { connectParams, socket } = message as {
    connectParams: { hostname: string; port: string | number };
    socket: { getProtocol?: () => string | null };
  };
  const protocol = socket.getProtocol?.();
  // `host` may already carry the port; hostname and port make the same key as the client's.
  if (protocol) tlsByHost.set(tlsKey(connectParams.hostname, connectParams.port), protocol);
});

export class GatewayClient {
  private readonly pool: Dispatcher;
  /** The proxy requests go through, its password masked: said by `check` and by errors. */
  readonly proxy: string | undefined;
  private readonly path: string;
  private readonly origin: string;
  private readonly redactText: Redact;
  /** `{"Username":…,"Password":…,"Messages":[` — serialised once, not per batch. */
  private readonly head: string;

  private readonly hostKey: string;

  /**
   * @param clock when an answer arrived: a rejection's retry-after counts from it.
   * @param ca CA certificates (PEM) trusted besides Node's own, for the gateway and the proxy.
   */
  constructor(
    access: ClientAccess,
    private readonly settings: ClientSettings,
    private readonly clock: Clock,
    ca?: readonly string[],
  ) {
    const url = new URL(access.endpoint);
    this.hostKey = tlsKey(url.hostname, url.port || (url.protocol === 'https:' ? '443' : '80'));
    this.path = `${url.pathname.replace(/\/+$/, '')}${OPERATION_PATH}${url.search}`;
    this.origin = url.origin;
    const proxy = proxyFor(access.endpoint, settings.proxies);
    this.pool = openDispatcher(url, settings, proxy, ca);
    this.proxy = proxy && `${maskUrl(proxy.url)} (${proxy.from})`;
    this.redactText = redactor(access.username, access.password);
    // Typed, so the wire names are checked; the Messages array is appended per batch.
    const credentials: Omit<RestSmsRequest, 'Messages'> = {
      Username: access.username,
      Password: access.password,
    };
    this.head = `${JSON.stringify(credentials).slice(0, -1)},"Messages":[`;
  }

  /**
   * POSTs one RestSmsRequest whose Messages are already serialised (one JSON object each), with
   * their MessageIds in order, and says what the answer means for them: classified, every text
   * masked. Never throws for network trouble: that is a verdict like any other.
   */
  async post(
    messages: readonly string[],
    messageIds: readonly string[],
    signal?: AbortSignal,
    posted?: () => void,
  ): Promise<Answer> {
    const exchange = await this.exchange(messages, { bodySent: false, posted }, signal);
    return answerOf(exchange, messageIds, this.clock.now(), this.redactText);
  }

  /** The raw exchange behind post(); kept to this module, where the masking is. */
  private async exchange(
    messages: readonly string[],
    tracker: Tracker,
    signal?: AbortSignal,
  ): Promise<Exchange> {
    const body = `${this.head}${messages.join(',')}]}`;
    // One deadline on the whole request (queue, connect, headers, body), so --timeout 3s means 3
    // seconds, not 3 seconds for each phase. A controller of its own, whose listener on the run's
    // signal is removed when the request ends (AbortSignal.any would keep one per request).
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.settings.timeoutMs);
    const onAbort = () => controller.abort();
    if (signal?.aborted) controller.abort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const request: Dispatcher.RequestOptions = {
      // An Agent (a proxy's) dispatches by origin; a Pool has its own.
      origin: this.origin,
      method: 'POST',
      path: this.path,
      // Only what the service interface names; HTTP adds host, content-length and connection.
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body,
      signal: controller.signal,
    };
    tracked(request, tracker);
    const started = performance.now();
    try {
      const response = await this.pool.request(request);
      const text = await readCapped(response.body);
      return {
        kind: 'response',
        status: response.statusCode,
        headers: flattenHeaders(response.headers),
        body: text,
        latencyMs: performance.now() - started,
      };
    } catch (error) {
      const { code, message, certNames } =
        timedOut && signal?.aborted !== true
          ? { code: 'TIMEOUT', message: 'timeout' }
          : describeError(error);
      return {
        kind: 'error',
        code,
        message: this.redactText(message),
        latencyMs: performance.now() - started,
        requestSent: tracker.bodySent,
        timeoutMs: this.settings.timeoutMs,
        ...(this.proxy === undefined ? {} : { proxy: this.proxy }),
        host: this.hostKey,
        ...(certNames === undefined ? {} : { certNames }),
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The TLS protocol negotiated with the gateway (e.g. TLSv1.3), once connected over https. */
  get tlsProtocol(): string | undefined {
    return tlsByHost.get(this.hostKey);
  }

  /** Closes the connections; bounded, so a run always ends (see closeWithin). */
  async close(): Promise<void> {
    await closeWithin(this.pool, Math.min(this.settings.timeoutMs, CLOSE_BOUND_MS));
  }

  /** Aborts every request in flight; their batches become `unknown`. */
  async destroy(): Promise<void> {
    await closeWithin(this.pool, Math.min(this.settings.timeoutMs, CLOSE_BOUND_MS), 'destroy');
  }
}

/**
 * The body as text, refused past MAX_RESPONSE_BYTES. Read through its events: an async iterator
 * over each response's stream cost a twentieth of a send's HTTP CPU. undici's chunks are views of
 * the socket's reads, which are not reused, so they are kept as they are until the end.
 */
function readCapped(body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_RESPONSE_BYTES) body.destroy(new ResponseTooLargeError());
      else chunks.push(chunk);
    });
    body.on('end', () => {
      ended = true;
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString());
    });
    body.on('error', reject);
    // Closed without an end or an error (a settled promise ignores this): as a stream's iterator says.
    body.on('close', () => {
      if (!ended) reject(new PrematureCloseError());
    });
  });
}

class PrematureCloseError extends Error {
  readonly code = 'ERR_STREAM_PREMATURE_CLOSE';
  constructor() {
    super('Premature close');
  }
}

class ResponseTooLargeError extends Error {
  readonly code = 'RESPONSE_TOO_LARGE';
  constructor() {
    super(`response body larger than ${MAX_RESPONSE_BYTES} bytes`);
  }
}

function flattenHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined)
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** Error codes only, never the error object: some libraries put request details in messages. */
/** The key of a host in the TLS map: the client and the diagnostics message must agree on it. */
export function tlsKey(hostname: string, port: string | number): string {
  return `${hostname}:${String(port)}`;
}

function describeError(error: unknown): { code: string; message: string; certNames?: string } {
  const refusal = proxyRefusal(error as { code?: unknown; message?: unknown });
  if (refusal) return { code: refusal, message: (error as Error).message };
  if (error instanceof undiciErrors.UndiciError) {
    return { code: error.code, message: error.message };
  }
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  // An AbortError's `code` is the DOMException number 20: the name is what identifies it.
  if (err.name === 'AbortError') return { code: 'ABORTED', message: err.message };
  const code = err.code ?? err.cause?.code ?? 'UNKNOWN';
  const certNames = code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? namesOf(error) : undefined;
  return {
    code,
    message: err.message ?? String(error),
    ...(certNames === undefined ? {} : { certNames }),
  };
}

/** The names the certificate tls.checkServerIdentity refused carries: its altnames, else its CN. */
function namesOf(error: unknown): string | undefined {
  const { cert } = error as { cert?: { subjectaltname?: unknown; subject?: { CN?: unknown } } };
  const names = cert?.subjectaltname ?? cert?.subject?.CN;
  return typeof names === 'string' && names.trim() !== '' ? names.trim() : undefined;
}
