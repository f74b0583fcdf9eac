// Which HTTP proxy a request to the gateway goes through: the `proxy` setting, or HTTPS_PROXY and
// HTTP_PROXY as curl, npm and undici read them, each unless NO_PROXY names the gateway's host.

/** A proxy, and what named it: `--proxy`, `SMS_SEND_PROXY`, a config file, `HTTPS_PROXY`, … */
export interface Proxy {
  url: string;
  from: string;
}

/** The proxies a run may use, by the gateway's scheme, and the hosts reached directly. */
export interface Proxies {
  http?: Proxy;
  https?: Proxy;
  /** NO_PROXY: hosts (and domains, `host:port`, `*`) reached directly. */
  noProxy?: string;
}

/**
 * The `proxy` setting for both schemes, else the environment's variables: https_proxy, then
 * HTTPS_PROXY, then (as undici does) the http one; the lower-case name first, as curl reads them.
 */
export function proxiesOf(
  setting: Proxy | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Proxies {
  const noProxy = named(env, 'no_proxy', 'NO_PROXY')?.url;
  if (setting) return { http: setting, https: setting, noProxy };
  const http = named(env, 'http_proxy', 'HTTP_PROXY');
  return { http, https: named(env, 'https_proxy', 'HTTPS_PROXY') ?? http, noProxy };
}

/** The first of the variables that is set and not empty. */
function named(
  env: Readonly<Record<string, string | undefined>>,
  ...names: string[]
): Proxy | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return { url: value, from: name };
  }
  return undefined;
}

/** The proxy a request to `endpoint` goes through, or undefined to reach it directly. */
export function proxyFor(endpoint: string, proxies: Proxies): Proxy | undefined {
  const url = new URL(endpoint);
  const proxy = url.protocol === 'https:' ? proxies.https : proxies.http;
  if (proxy === undefined) return undefined;
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  return bypasses(url.hostname, port, proxies.noProxy ?? '') ? undefined : proxy;
}

/**
 * NO_PROXY as undici reads it (and curl, in the main): entries separated by commas or spaces,
 * each a host name (its subdomains included; a leading `.` or `*.` changes nothing), an IP
 * address, either with `:port`, or `*` for every host.
 */
export function bypasses(hostname: string, port: number, noProxy: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  for (const raw of noProxy.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const { name, port: only } = hostAndPort(entry);
    if (only !== undefined && only !== port) continue;
    const bare = name.replace(/^\*?\./, '');
    if (host === bare || host.endsWith(`.${bare}`)) return true;
  }
  return false;
}

/** `host`, `host:port`, `[::1]:port` or a bare IPv6 address. */
function hostAndPort(entry: string): { name: string; port?: number } {
  const bracketed = /^\[(.*)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1]!, port: portOf(bracketed[2]) };
  const parts = entry.split(':');
  if (parts.length === 2) return { name: parts[0]!, port: portOf(parts[1]) };
  return { name: entry };
}

function portOf(text: string | undefined): number | undefined {
  return text === undefined || text === '' ? undefined : Number(text);
}
