// `sms-send config`: the resolved settings and where each came from, the password masked.
import { settingsFor, type GatewayFlags } from '../gateway-settings.js';
import { colorFor } from '../ui/color.js';

export interface ConfigFlags extends GatewayFlags {
  json?: boolean;
}

export async function runConfig(flags: ConfigFlags): Promise<number> {
  const settings = await settingsFor(flags);
  const { defaults, sources } = settings;
  const rows: [
    key: string,
    value: string | number | object | undefined,
    source: string | undefined,
  ][] = [
    ['endpoint', settings.endpoint, sources.endpoint],
    ['username', settings.username, sources.username],
    ['password', settings.password === undefined ? undefined : '***', sources.password],
    ['gateway', defaults.gateway, sources.gateway],
    ['originatorAddress', defaults.originatorAddress, sources.originatorAddress],
    ['price', defaults.price, sources.price],
    ['messageType', defaults.messageType, sources.messageType],
    ['validationPeriod', defaults.validationPeriod, sources.validationPeriod],
    ['category', defaults.category, sources.category],
    ['deliveryReportUrl', defaults.deliveryReportUrl, sources.deliveryReportUrl],
    [
      'customData',
      Object.keys(defaults.customData).length ? defaults.customData : undefined,
      sources.customData,
    ],
    ['serviceCode', defaults.serviceCode, sources.serviceCode],
    ['serviceDescription', defaults.serviceDescription, sources.serviceDescription],
    ['country', settings.country, sources.country],
    ['batchSize', settings.batchSize, sources.batchSize],
    ['concurrency', settings.concurrency, sources.concurrency],
    ['rate', settings.rate, sources.rate],
    ['timeout', `${settings.timeoutMs / 1000}s`, sources.timeout],
    ['retries', settings.retries, sources.retries],
    ['stateDir', settings.stateDir, sources.stateDir],
    ['campaign', settings.campaign, sources.campaign],
  ];
  if (flags.json) {
    const doc = Object.fromEntries(
      rows
        .filter(([, v]) => v !== undefined)
        .map(([k, v, s]) => [k, { value: v, source: s ?? 'default' }]),
    );
    process.stdout.write(
      `${JSON.stringify({ config: { file: settings.configFile ?? null, profile: settings.profile ?? null, settings: doc } })}\n`,
    );
    return 0;
  }
  const c = colorFor('stdout');
  const lines = [
    `${c.bold('config file')}  ${settings.configFile ?? c.dim('(none found)')}`,
    `${c.bold('profile')}      ${settings.profile ?? c.dim('(none)')}`,
    '',
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [key, value, source] of rows) {
    const shown = value === undefined ? c.dim('(unset)') : JSON.stringify(value);
    lines.push(`  ${key.padEnd(width)}  ${shown}  ${c.dim(`← ${source ?? 'default'}`)}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
