// What a client's requests go through: a Pool to the gateway, or undici's ProxyAgent when a proxy
// is in the way (a CONNECT tunnel to an https gateway, absolute-form requests to an http one);
// and how each request's body is known to have been written whole, whichever it is.
import { subscribe } from 'node:diagnostics_channel';
import { rootCertificates } from 'node:tls';
import { Client, Pool, ProxyAgent, type Dispatcher } from 'undici';
import type { Proxy } from './proxy.js';

/** What a request's options carry for its tracker: spreads of the options along the way keep it. */
const TRACKED = Symbol('sms-send request tracker');

/** Whether a request's body was written whole; `posted` is told the moment it was. */
export interface Tracker {
  bodySent: boolean;
  posted?: () => void;
}

const trackerOfRequest = new WeakMap<object, Tracker>();
/** The tracker of the dispatch a Client is running; undici creates its request synchronously in it. */
let dispatching: Tracker | undefined;

subscribe('undici:request:create', (message) => {
  if (dispatching) trackerOfRequest.set((message as { request: object }).request, dispatching);
});
subscribe('undici:request:bodySent', (message) => {
  const tracker = trackerOfRequest.get((message as { request: object }).request);
  if (!tracker) return;
  tracker.bodySent = true;
  tracker.posted?.();
});

/** The request's options, carrying its tracker to the Client that writes it. */
export function tracked(
  request: Dispatcher.RequestOptions,
  tracker: Tracker,
): Dispatcher.RequestOptions {
  return Object.assign(request, { [TRACKED]: tracker });
}

/**
 * A Pool's client that marks its dispatches. At a Pool's level a request may wait in a queue; a
 * Client creates undici's request object the moment it is called. A subclass, not a composed
 * Client: a Pool drops a client whose connection failed by its identity, and a composed Client is
 * another object, so the failed one stayed and the Pool's close() never settled.
 */
class TrackingClient extends Client {
  override dispatch(
    opts: Dispatcher.DispatchOptions,
    handler: Dispatcher.DispatchHandler,
  ): boolean {
    const outer = dispatching;
    dispatching = (opts as { [TRACKED]?: Tracker })[TRACKED];
    try {
      return super.dispatch(opts, handler);
    } finally {
      dispatching = outer;
    }
  }
}

function trackingClient(origin: URL, options: object): Dispatcher {
  return new TrackingClient(origin, options);
}

/** The part of the run's resolved settings a dispatcher is opened with, read in place. */
export interface DispatcherSettings {
  /** Requests in flight: a connection each. */
  concurrency: number;
  /** Each phase of a request (connect, headers, body) ends by it, as the request itself does. */
  timeoutMs: number;
}

/**
 * The dispatcher a client sends its batches through: straight to `endpoint`, or through `proxy`
 * (gateway/proxy.ts decides), trusting `ca` (PEM) besides Node's own certificates.
 */
export function openDispatcher(
  endpoint: URL,
  settings: DispatcherSettings,
  proxy?: Proxy,
  ca?: readonly string[],
): Dispatcher {
  const { timeoutMs } = settings;
  // Node's roots stay trusted: `ca` replaces the store it is given, so it is given them too.
  const tls = ca && ca.length > 0 ? { ca: [...rootCertificates, ...ca] } : undefined;
  const pooled = (connect?: object) => ({
    connections: settings.concurrency,
    connectTimeout: timeoutMs,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 10_000,
    pipelining: 1,
    factory: trackingClient,
    ...(connect ? { connect } : {}),
  });
  if (!proxy) return new Pool(endpoint.origin, pooled(tls));
  return new ProxyAgent({
    uri: proxy.url,
    // An https gateway through a CONNECT tunnel, end to end encrypted; an http one as a plain
    // forward (many proxies allow CONNECT to port 443 only).
    proxyTunnel: endpoint.protocol === 'https:',
    requestTls: tls,
    proxyTls: tls,
    // The tunnel's connector (a function) comes in the options; the forward's Client gets none.
    factory: (origin: string | URL, extra: { connect?: object }) =>
      new Pool(origin, pooled(extra.connect)),
  });
}

/**
 * A proxy's own refusal, told from the errors undici gives for it: the status a tunnel was
 * refused with (`PROXY_407`, `PROXY_502`, …), or undefined for any other error.
 */
export function proxyRefusal(error: { code?: unknown; message?: unknown }): string | undefined {
  const message = typeof error.message === 'string' ? error.message : '';
  const tunnel = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/.exec(message);
  if (tunnel) return `PROXY_${tunnel[1]}`;
  if (/^Proxy Authentication Required \(407\)/.test(message)) return 'PROXY_407';
  if (error.code === 'UND_ERR_PRX_TLS') return 'PROXY_TLS';
  return undefined;
}

/** How a bounded close ended: closed as asked, or its connections destroyed, or let go. */
export type Closing = 'closed' | 'destroyed' | 'abandoned';

/**
 * Closes a dispatcher (or with `destroy`, abandons what is in flight at once), waiting at most
 * `ms` for it; past that its connections are destroyed, and past as long again it is let go. A
 * run ends after its client closes, so a close that undici never settles (as a Pool of composed
 * clients did after a failed TLS connection) must not keep the run from ending, its lock from
 * being released or its summary from being printed.
 */
export async function closeWithin(
  dispatcher: Dispatcher,
  ms: number,
  how: 'close' | 'destroy' = 'close',
): Promise<Closing> {
  if (how === 'close' && (await settlesWithin(dispatcher.close(), ms)) === 'settled') {
    return 'closed';
  }
  const destroyed = await settlesWithin(dispatcher.destroy(), ms);
  return destroyed === 'settled' ? 'destroyed' : 'abandoned';
}

/** Whether a promise settles (either way) within `ms`; the timer keeps the process alive meanwhile. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<'settled' | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  const settled = promise.then(
    () => 'settled' as const,
    () => 'settled' as const,
  );
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}
