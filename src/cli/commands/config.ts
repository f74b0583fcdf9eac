// `sms-send config`: the resolved settings and where each came from, the password masked.
import { configDocument, profilesDocument } from '../../campaign/documents.js';
import { ExitCode } from '../../shared/errors.js';
import { SETTING_KEYS, SETTINGS, type SettingSpec } from '../../config/table.js';
import { settingsFor, type GatewayFlags } from '../gateway-settings.js';
import { colorFor } from '../ui/color.js';
import { renderConfig, renderProfiles } from '../ui/config.js';

export interface ConfigFlags extends GatewayFlags {
  json?: boolean;
  profiles?: boolean;
}

export async function runConfig(flags: ConfigFlags): Promise<ExitCode> {
  const settings = await settingsFor(flags);
  if (flags.profiles) {
    const file = settings.configFile ?? null;
    process.stdout.write(
      flags.json
        ? `${JSON.stringify(profilesDocument(file, settings.profiles))}\n`
        : `${renderProfiles(file, settings.profiles, colorFor('stdout'))}\n`,
    );
    return ExitCode.ok;
  }
  const { sources } = settings;
  // Every setting of the table as the layers gave it; the password (from wherever) masked, the
  // state directory as resolved.
  const rows = SETTING_KEYS.map((key): [string, unknown, string | undefined] => {
    const spec: SettingSpec = SETTINGS[key];
    const given: unknown = settings.values[key];
    const value: unknown = spec.secret
      ? settings.password && '***'
      : key === 'stateDir'
        ? settings.stateDir
        : typeof given === 'string' && spec.shown
          ? spec.shown(given)
          : given;
    const empty = typeof value === 'object' && value !== null && Object.keys(value).length === 0;
    return [key, empty ? undefined : value, sources[key]];
  });
  if (flags.json) {
    const shown = rows.map(([key, value, source]) => ({ key, value, source }));
    const doc = configDocument(settings.configFile ?? null, settings.profile ?? null, shown);
    process.stdout.write(`${JSON.stringify(doc)}\n`);
    return ExitCode.ok;
  }
  const lines = renderConfig(
    { file: settings.configFile, profile: settings.profile, rows },
    colorFor('stdout'),
  );
  process.stdout.write(`${lines}\n`);
  return ExitCode.ok;
}
