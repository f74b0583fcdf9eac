// The resolved settings every command runs with: the table's own, derived from it, and those computed from several.
import type * as v from 'valibot';
import type { MessageDefaults } from '../message/build.js';
import type { Proxies } from '../gateway/proxy.js';
import type { SendWindow } from '../shared/window.js';
import type { FileSettings, SETTINGS, SettingKey } from './table.js';

type Table = typeof SETTINGS;

/** A key the resolved settings hold as itself: a plain setting of the table. */
type PlainKey = {
  [K in SettingKey]: Table[K] extends { resolved: string } ? never : K;
}[SettingKey];
/** A duration of the table, held as `<key>Ms`. */
type MsKey = { [K in SettingKey]: Table[K] extends { resolved: 'ms' } ? K : never }[SettingKey];

/** A plain setting's value: as its entry normalises it, else its schema's, set when it has a default. */
type Plain<K extends SettingKey> = Table[K] extends { normalise(value: never): infer R }
  ? R
  : Table[K] extends { default: unknown }
    ? v.InferOutput<Table[K]['schema']>
    : v.InferOutput<Table[K]['schema']> | undefined;

/** The plain settings that may be unset: optional keys, as a hand-written type would have them. */
type Unset = { [K in PlainKey]: undefined extends Plain<K> ? K : never }[PlainKey];

/**
 * The settings the table declares, typed from their entries (as vitest's `CLIOptions<Config>`
 * is from its config), so a plain setting is its entry and the code that reads it.
 */
export type TableSettings = { [K in Exclude<PlainKey, Unset>]: Plain<K> } & {
  [K in Unset]?: Plain<K>;
} & { [K in MsKey as `${K}Ms`]: number };

/** The settings made from several entries of the table, or from none. */
export interface ComputedSettings {
  /**
   * From password, passwordFile, passwordEnv or --password-stdin. Never printed, logged or
   * written; see redact().
   */
  password?: string;
  /**
   * Why the configured password could not be had (a passwordFile that cannot be read, a
   * passwordEnv variable not set), naming the key, where it was set and the reason: a warning
   * for everything but talking to a real gateway, which it refuses.
   */
  passwordProblem?: string;
  /** The proxies the gateway is reached through: the `proxy` setting, or the environment's. */
  proxies: Proxies;
  /** A PEM file of CA certificates trusted besides the system's (resolved against its source). */
  caFile?: string;
  /** The message fields of the table, applied to every record unless it sets its own. */
  defaults: MessageDefaults;
  /**
   * Suppression lists, in the order given (config file's first, relative to it; then flags,
   * relative to the working folder): `path` to read, `label` as the user wrote it.
   */
  suppress: { path: string; label: string }[];
  /** When sending is allowed (--window, --days, --not-before in --tz); unset: at any time. */
  sendWindow?: SendWindow;
  /**
   * Campaign journals, locks, spools and manifests live here (one folder per campaign); with a
   * state URL, this host's cache of them (spools, timelines, input digests).
   */
  stateDir: string;
  /** The merged values as the layers gave them, before normalising: what `sms-send config` shows. */
  values: FileSettings;
  /** Where each setting came from: "default", a config file path, "env" or "flag". */
  sources: Partial<Record<SettingKey, string>>;
  configFile?: string;
  profile?: string;
  /** The profiles the config file defines, with the keys each sets (`sms-send config --profiles`). */
  profiles: Record<string, string[]>;
  /** Problems that do not stop the run (e.g. a readable password file). */
  warnings: string[];
}

export interface Settings extends TableSettings, ComputedSettings {}
