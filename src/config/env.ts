// Reads the settings that the environment may set (SMS_SEND_*), as named in the settings table.
import { SETTING_KEYS, SETTINGS, type SettingKey } from './table.js';

/** Chooses a profile; not a setting of its own. */
export const PROFILE_ENV = 'SMS_SEND_PROFILE';

/** The raw values the environment sets, by setting key; empty variables set nothing. */
export function envLayer(env: NodeJS.ProcessEnv): Partial<Record<SettingKey, string>> {
  const values: Partial<Record<SettingKey, string>> = {};
  for (const key of SETTING_KEYS) {
    const name: string | undefined = SETTINGS[key].env;
    const value = name === undefined ? undefined : env[name];
    if (value) values[key] = value;
  }
  return values;
}

/** The variable behind a key, for messages. */
export function envName(key: string): string {
  return SETTINGS[key as SettingKey]?.env ?? key;
}
