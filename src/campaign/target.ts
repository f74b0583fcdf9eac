// Where a campaign is sent: the gateway the settings name (an endpoint and its credentials, or the
// in-process simulator), checked before anything is read, and the client opened to it and closed after.
import type { Clock } from '../shared/clock.js';
import type { Settings } from '../config/settings.js';
import type { ClientSettings, GatewayClient } from '../gateway/client.js';
import { readFile } from 'node:fs/promises';
import type { Proxies } from '../gateway/proxy.js';
import { describeSystemError, UsageError } from '../shared/errors.js';
import { maskUrl } from '../shared/url.js';
import type { DeliveryReportOptions, Simulator, SimulatorOptions } from '../simulator/index.js';

/** The caller's choice of gateway: the built-in simulator, or the endpoint (plain http refused unless allowed). */
export interface GatewayChoice {
  simulate?: boolean;
  allowInsecure?: boolean;
}

/** Credentials the in-process simulator accepts when the user configured none. */
export const SIMULATOR_CREDENTIALS = { username: 'simulator', password: 'simulator' };

/** How the gateway is reached: its endpoint (none for the simulator), credentials, and its name in output. */
export interface GatewayAccess {
  endpoint?: string;
  username: string;
  password: string;
  label: string;
}

export function gatewayAccess(settings: Settings, choice: GatewayChoice): GatewayAccess {
  if (choice.simulate) {
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
  if (url.protocol === 'http:' && !isLoopbackUrl(url) && !choice.allowInsecure) {
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
  /** What the manifest records it was sent to: "simulator", or the endpoint (a password in it masked). */
  sentTo: string;
  close(options?: { abort?: boolean }): Promise<void>;
}

/**
 * The part of a run the gateway is opened with: the settings the client reads (a connection for
 * each request in flight), its CAs, the simulator.
 */
export interface GatewayRun {
  settings: ClientSettings & Pick<Settings, 'caFile'>;
  choices: { simulate?: boolean };
  /** The built-in simulator's options, when the run brings its own. */
  simulator?: SimulatorOptions;
  io: { clock: Clock };
}

/** The built-in simulator is on this machine: never reached through a proxy. */
const DIRECT: Proxies = {};

export async function openGateway(
  access: GatewayAccess,
  run: GatewayRun,
  options: {
    /** What the simulator behind --simulate does with DeliveryReportUrls (default: nothing). */
    deliveryReports?: DeliveryReportOptions;
  } = {},
): Promise<OpenGateway> {
  const { settings } = run;
  let simulator: Simulator | undefined;
  let endpoint = access.endpoint;
  if (run.choices.simulate) {
    const { startSimulator } = await import('../simulator/index.js');
    // The in-process simulator keeps no ledger and no request log: nobody reads them, and what
    // they hold would grow with the run, or outlive V8's young generation.
    simulator = await startSimulator({
      ledgerLimit: 1,
      requestLimit: 1,
      deliveryReports: options.deliveryReports,
      ...run.simulator,
      port: 0,
    });
    endpoint = simulator.url;
  }
  // Loaded here, not at start: a dry run and every command that sends nothing do without HTTP.
  const { GatewayClient } = await import('../gateway/client.js');
  const client = new GatewayClient(
    { ...access, endpoint: endpoint! },
    simulator ? { ...settings, proxies: DIRECT } : settings,
    run.io.clock,
    settings.caFile === undefined ? undefined : await trustedCas(settings.caFile),
  );
  return {
    client,
    label: simulator ? 'built-in simulator' : endpoint!,
    simulated: simulator !== undefined,
    sentTo: simulator ? 'simulator' : maskUrl(endpoint!),
    async close({ abort = false } = {}) {
      if (abort) await client.destroy();
      else await client.close();
      await simulator?.stop();
    },
  };
}
