// Settings shared by the commands that talk to a gateway: flags to a config layer, credentials, target.
import { flagAttribute, SETTING_KEYS, SETTINGS } from '../config/table.js';
import { resolveSettings } from '../config/resolve.js';
import type { Settings } from '../config/settings.js';
import { UsageError } from '../shared/errors.js';
import type { GatewayClient } from '../gateway/client.js';
import type { DeliveryReportOptions, Simulator } from '../simulator/index.js';
import { colorFor } from './ui/color.js';

/** Flags of the commands that resolve settings; the settings' own flags come from the table. */
export interface GatewayFlags {
  simulate?: boolean;
  allowInsecure?: boolean;
  config?: string;
  profile?: string;
  passwordStdin?: boolean;
  [flag: string]: unknown;
}

/** Credentials the in-process simulator accepts when the user configured none. */
export const SIMULATOR_CREDENTIALS = { username: 'simulator', password: 'simulator' };

/** Only flags the user passed become a layer, so the config file can set everything else. */
export function flagLayer(flags: GatewayFlags): Record<string, unknown> {
  const layer: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const { flag, fromFlag } = SETTINGS[key] as {
      flag?: string;
      fromFlag?: (t: string) => unknown;
    };
    const value = flag === undefined ? undefined : flags[flagAttribute(flag)];
    if (value === undefined) continue;
    layer[key] = fromFlag && typeof value === 'string' ? fromFlag(value) : value;
  }
  return layer;
}

export interface Target {
  endpoint?: string;
  username: string;
  password: string;
  label: string;
}

export function gatewayTarget(settings: Settings, flags: GatewayFlags): Target {
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

export async function readPasswordFromStdin(inputs: string[]): Promise<string> {
  if (inputs.includes('-')) {
    throw new UsageError('--password-stdin and input from stdin (-) cannot share standard input');
  }
  if (process.stdin.isTTY) throw new UsageError('--password-stdin needs the password piped in');
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  const password = text.replace(/\r?\n$/, '');
  if (!password) throw new UsageError('--password-stdin: standard input was empty');
  return password;
}

/** The config pipeline for a gateway command, with the flags the user passed. */
export async function settingsFor(
  flags: GatewayFlags,
  inputs: readonly string[] = [],
): Promise<Settings> {
  const settings = await resolveSettings({
    cwd: process.cwd(),
    env: process.env,
    flags: flagLayer(flags),
    configPath: flags.config,
    profile: flags.profile,
    stdinPassword: flags.passwordStdin ? await readPasswordFromStdin([...inputs]) : undefined,
  });
  const err = colorFor('stderr');
  for (const warning of settings.warnings)
    process.stderr.write(err.yellow(`warning: ${warning}\n`));
  return settings;
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
  flags: GatewayFlags,
  options: {
    connections: number;
    timeoutMs: number;
    /** What the simulator behind --simulate does with DeliveryReportUrls (default: nothing). */
    deliveryReports?: DeliveryReportOptions;
  },
): Promise<OpenGateway> {
  let simulator: Simulator | undefined;
  let endpoint = target.endpoint;
  if (flags.simulate) {
    const { startSimulator } = await import('../simulator/index.js');
    // The in-process simulator keeps no ledger: nobody reads it, and it would grow with the run.
    simulator = await startSimulator({
      port: 0,
      ledgerLimit: 1,
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
