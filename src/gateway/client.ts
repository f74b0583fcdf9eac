// The only module that speaks HTTP: one undici Pool per run, one POST per batch, raw outcome back.
import { subscribe } from 'node:diagnostics_channel';
import { Pool, errors as undiciErrors } from 'undici';
import { OPERATION_PATH } from './types.js';

export interface ClientOptions {
  endpoint: string;
  username: string;
  password: string;
  connections: number;
  timeoutMs: number;
}

/** What one HTTP exchange produced, before any interpretation. */
export type Exchange =
  | {
      kind: 'response';
      status: number;
      headers: Record<string, string>;
      body: string;
      latencyMs: number;
    }
  | {
      kind: 'error';
      code: string;
      message: string;
      latencyMs: number;
      /** True once the whole request was written: from then on the gateway may have processed it. */
      requestSent: boolean;
    };

/** Cap on a response body we are willing to hold: far above any real RestSmsResponse. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** Tags each request so undici's diagnostics can tell us when its body was fully written. */
const TAG = 'x-sms-send-request';
const bodySent = new Set<string>();
let nextTag = 0;
subscribe('undici:request:bodySent', (message) => {
  const headers = (message as { request: { headers: unknown } }).request.headers;
  if (!Array.isArray(headers)) return;
  for (let i = 0; i < headers.length - 1; i += 2) {
    if (String(headers[i]).toLowerCase() === TAG) bodySent.add(String(headers[i + 1]));
  }
});

/** The TLS protocol of the latest connection to each host:port, for `sms-send check`. */
const tlsByHost = new Map<string, string>();
subscribe('undici:client:connected', (message) => {
  const { connectParams, socket } = message as {
    connectParams: { host: string; port: string | number };
    socket: { getProtocol?: () => string | null };
  };
  const protocol = socket.getProtocol?.();
  if (protocol) tlsByHost.set(`${connectParams.host}:${connectParams.port}`, protocol);
});

export class GatewayClient {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly password: string;
  /** `{"Username":…,"Password":…,"Messages":[` — serialised once, not per batch. */
  private readonly head: string;

  private readonly hostKey: string;

  constructor(options: ClientOptions) {
    const url = new URL(options.endpoint);
    this.hostKey = `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
    this.path = `${url.pathname.replace(/\/+$/, '')}${OPERATION_PATH}${url.search}`;
    this.pool = new Pool(url.origin, {
      connections: options.connections,
      connectTimeout: options.timeoutMs,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 10_000,
      pipelining: 1,
    });
    this.password = options.password;
    this.head = `{"Username":${JSON.stringify(options.username)},"Password":${JSON.stringify(options.password)},"Messages":[`;
  }

  /**
   * POSTs one RestSmsRequest whose Messages are already serialised (one JSON object each).
   * Never throws for network trouble: that is an Exchange of kind 'error'.
   */
  async post(messages: readonly string[], signal?: AbortSignal): Promise<Exchange> {
    const body = `${this.head}${messages.join(',')}]}`;
    const tag = String(++nextTag);
    const started = performance.now();
    try {
      const response = await this.pool.request({
        method: 'POST',
        path: this.path,
        headers: { accept: 'application/json', 'content-type': 'application/json', [TAG]: tag },
        body,
        signal,
      });
      const text = await readCapped(response.body);
      return {
        kind: 'response',
        status: response.statusCode,
        headers: flattenHeaders(response.headers),
        body: text,
        latencyMs: performance.now() - started,
      };
    } catch (error) {
      const { code, message } = describeError(error);
      return {
        kind: 'error',
        code,
        message: this.redact(message),
        latencyMs: performance.now() - started,
        requestSent: bodySent.has(tag),
      };
    } finally {
      bodySent.delete(tag);
    }
  }

  /** The TLS protocol negotiated with the gateway (e.g. TLSv1.3), once connected over https. */
  get tlsProtocol(): string | undefined {
    return tlsByHost.get(this.hostKey);
  }

  /** A gateway or library that echoes the request must not carry the password into a report. */
  redact(text: string): string {
    const secret = this.password;
    // A password of one to three characters would mask ordinary words ("Acce***ted"); such a
    // password protects nothing anyway.
    return secret.length >= 4 && text.includes(secret) ? text.split(secret).join('***') : text;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** Aborts every request in flight; their batches become `unknown`. */
  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}

async function readCapped(body: AsyncIterable<Buffer | Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) throw new ResponseTooLargeError();
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
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
function describeError(error: unknown): { code: string; message: string } {
  if (error instanceof undiciErrors.UndiciError) {
    return { code: error.code, message: error.message };
  }
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  // An AbortError's `code` is the DOMException number 20: the name is what identifies it.
  if (err.name === 'AbortError') return { code: 'ABORTED', message: err.message };
  const code = err.code ?? err.cause?.code ?? 'UNKNOWN';
  return { code, message: err.message ?? String(error) };
}
