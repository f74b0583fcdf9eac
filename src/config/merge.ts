// Merges setting layers (defaults < file < env < flags), remembering where each value came from.
import { isPlainObject } from '../shared/plain-object.js';
import type { FileSettings, SettingKey } from './table.js';

/** One source of settings: its name ("default", a file path, "env", "flag") and the values it sets. */
export interface Layer {
  source: string;
  values: FileSettings;
}

export interface Merged {
  values: FileSettings;
  sources: Partial<Record<SettingKey, string>>;
}

/**
 * Later layers win key by key; an undefined value never overrides. customData merges per key
 * so `--custom k=v` adds to the file's custom data instead of replacing it; suppression lists add
 * up, so a `--suppress` flag never drops the opt-out list a config file names.
 */
export function mergeLayers(layers: readonly Layer[]): Merged {
  const values: Record<string, unknown> = {};
  const sources: Partial<Record<SettingKey, string>> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer.values) as [SettingKey, unknown][]) {
      if (value === undefined) continue;
      if (key === 'customData' && isPlainObject(value) && isPlainObject(values[key])) {
        values[key] = { ...values[key], ...value };
      } else if (key === 'suppress' && Array.isArray(values[key])) {
        values[key] = [...new Set([...(values[key] as string[]), ...(value as string[])])];
      } else {
        values[key] = value;
      }
      sources[key] = layer.source;
    }
  }
  return { values: values, sources };
}
