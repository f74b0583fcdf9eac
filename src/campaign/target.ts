// Where a campaign is sent: the gateway target the settings name (an endpoint, or the in-process
// simulator), checked before anything is read, and the client opened to it and closed after.
import type { Settings } from '../config/settings.js';
import type { GatewayClient } from '../gateway/client.js';
import { readFile } from 'node:fs/promises';
import { proxyFor, type Proxies } from '../gateway/proxy.js';
import { describeSystemError, UsageError } from '../shared/errors.js';
import type { DeliveryReportOptions, Simulator } from '../simulator/index.js';

/** How the caller asks for a target: the built-in simulator, or the endpoint (plain http refused unless allowed). */
export interface TargetChoice {
  simulate?: boolean;
  allowInsecure?: boolean;
}

/** Credentials the in-process simulator accepts when the user configured none. */
export const SIMULATOR_CREDENTIALS = { username: 'simulator', password: 'simulator' };

export interface Target {
  endpoint?: string;
  username: string;
  password: string;
  label: string;
}

export function gatewayTarget(settings: Settings, flags: TargetChoice): Target {
  if (flags.simulate) {
    return {
      username: settings.username ?? SIMULATOR_CREDENTIALS.username,
      password: settings.password ?? SIMULATOR_CREDENTIALS.password,
      label: 'the built-in simulator',
    };
  }
  if (!settings.endpoint) {
    throw new UsageError(
      'no gateway endpoint: pass --endpoint URL (or set SMS_SEND_ENDPOINT, or "endpoint" in .sms-sendrc.json), ' +
        'or pass --simulate to try sms-send against the built-in simulator. Nothing was sent.',
      'no-endpoint',
    );
  }
  let url: URL;
  try {
    url = new URL(settings.endpoint);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(
      `endpoint "${settings.endpoint}" (from ${settings.sources.endpoint ?? 'settings'}) must be an ` +
        'absolute http(s) URL such as https://smsgw.intele.no/pushsms/rest',
      'bad-endpoint',
    );
  }
  if (url.protocol === 'http:' && !isLoopbackUrl(url) && !flags.allowInsecure) {
    throw new UsageError(
      `${settings.endpoint} is plain http: the password would cross the network unencrypted. ` +
        'Use https, or pass --allow-insecure if you really mean it.',
      'insecure-endpoint',
    );
  }
  if (!settings.password && settings.passwordProblem) {
    throw new UsageError(
      `no password for ${settings.endpoint}: ${settings.passwordProblem}. Fix it, or use ` +
        'SMS_SEND_PASSWORD or --password-stdin; --dry-run and --simulate need no password. Nothing was sent.',
      'no-credentials',
    );
  }
  if (!settings.username || !settings.password) {
    const missing = [!settings.username && 'username', !settings.password && 'password'].filter(
      Boolean,
    );
    throw new UsageError(
      `no ${missing.join(' or ')} for ${settings.endpoint}: set SMS_SEND_USERNAME and SMS_SEND_PASSWORD, ` +
        'or username and passwordFile/passwordEnv in the config file, or use --password-stdin.',
      'no-credentials',
    );
  }
  return {
    endpoint: settings.endpoint,
    username: settings.username,
    password: settings.password,
    label: url.host,
  };
}

/**
 * The certificates of a caFile, and those of NODE_EXTRA_CA_CERTS: handing the TLS layer a CA list
 * replaces the store Node built from that variable, so it is read here too.
 */
async function trustedCas(caFile: string): Promise<string[]> {
  const files = [caFile, process.env.NODE_EXTRA_CA_CERTS].filter(
    (file): file is string => file !== undefined && file !== '',
  );
  const certificates: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read the CA file ${file}: ${describeSystemError(error)}`,
        'ca-file',
      );
    }
    const found = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    if (found.length === 0) {
      throw new UsageError(
        `${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
        'ca-file',
      );
    }
    certificates.push(...found);
  }
  return certificates;
}

/** Whether a URL names this machine (localhost, 127.x.x.x, [::1]). */
export function isLoopbackUrl(endpoint: string | URL): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  return (
    url.hostname === 'localhost' ||
    url.hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(url.hostname)
  );
}

/** The gateway a command talks to: a client, and the in-process simulator behind --simulate. */
export interface OpenGateway {
  client: GatewayClient;
  /** What to call it in output: the endpoint, or "built-in simulator". */
  label: string;
  simulated: boolean;
  close(options?: { abort?: boolean }): Promise<void>;
}

export async function openGateway(
  target: Target,
  flags: TargetChoice,
  options: {
    connections: number;
    timeoutMs: number;
    /** The proxies of the settings: the endpoint's is used, unless NO_PROXY names its host. */
    proxies?: Proxies;
    /** A PEM file of CA certificates to trust besides Node's. */
    caFile?: string;
    /** What the simulator behind --simulate does with DeliveryReportUrls (default: nothing). */
    deliveryReports?: DeliveryReportOptions;
  },
): Promise<OpenGateway> {
  let simulator: Simulator | undefined;
  let endpoint = target.endpoint;
  if (flags.simulate) {
    const { startSimulator } = await import('../simulator/index.js');
    // The in-process simulator keeps no ledger and no request log: nobody reads them, and what
    // they hold would grow with the run, or outlive V8's young generation.
    simulator = await startSimulator({
      port: 0,
      ledgerLimit: 1,
      requestLimit: 1,
      deliveryReports: options.deliveryReports,
    });
    endpoint = simulator.url;
  }
  // Loaded here, not at start: a dry run and every command that sends nothing do without HTTP.
  const { GatewayClient } = await import('../gateway/client.js');
  const client = new GatewayClient({
    endpoint: endpoint!,
    username: target.username,
    password: target.password,
    connections: options.connections,
    timeoutMs: options.timeoutMs,
    // The built-in simulator is on this machine: never through a proxy.
    proxy: simulator || !options.proxies ? undefined : proxyFor(endpoint!, options.proxies),
    ca: options.caFile === undefined ? undefined : await trustedCas(options.caFile),
  });
  return {
    client,
    label: simulator ? 'built-in simulator' : endpoint!,
    simulated: simulator !== undefined,
    async close({ abort = false } = {}) {
      if (abort) await client.destroy();
      else await client.close();
      await simulator?.stop();
    },
  };
}
