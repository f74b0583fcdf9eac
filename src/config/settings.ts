// The resolved settings every command runs with, normalised from the merged layers.
import type { MessageDefaults } from '../message/build.js';
import type { PricePerSegment } from '../message/cost.js';
import type { Proxies } from '../gateway/proxy.js';
import type { SendWindow } from '../shared/window.js';
import type { FileSettings, SettingKey } from './table.js';

export interface Settings {
  endpoint?: string;
  username?: string;
  /** Never printed, logged or written; see redact(). */
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
  defaults: MessageDefaults;
  country?: string;
  /**
   * Suppression lists, in the order given (config file's first, relative to it; then flags,
   * relative to the working folder): `path` to read, `label` as the user wrote it.
   */
  suppress: { path: string; label: string }[];
  batchSize: number;
  concurrency: number;
  /** --gsm-normalize: texts are sent with look-alikes outside GSM-7 replaced from one table. */
  gsmNormalize: boolean;
  /** --strict: what looks like a mistake in the text ({name} for {{name}}) refuses the run. */
  strict: boolean;
  /** --max-segments: a record whose text needs more segments is invalid. */
  maxSegments?: number;
  /** The price of a segment, for the plan's cost estimate. */
  pricePerSegment?: PricePerSegment;
  /** The currency of pricePerSegment and maxCost, as the plan names it (e.g. NOK). */
  currency?: string;
  /** --max-cost: a campaign estimated to cost more is refused (needs pricePerSegment). */
  maxCost?: number;
  /** Messages per second; undefined means unlimited. */
  rate?: number;
  timeoutMs: number;
  retries: number;
  /** How long an unusable gateway is waited for (probed) before the run stops; 0 never waits. */
  outageGraceMs: number;
  /** When sending is allowed (--window, --days, --not-before in --tz); unset: at any time. */
  sendWindow?: SendWindow;
  /**
   * Campaign journals, locks, spools and manifests live here (one folder per campaign); with a
   * state URL, this host's cache of them (spools, timelines, input digests).
   */
  stateDir: string;
  /** Campaign state in PostgreSQL (`--state-url`): every host that sends sees it. */
  stateUrl?: string;
  /** With a state URL: how long a run's hold on a campaign outlives its last renewal. */
  leaseMs: number;
  /** An explicit campaign name (may hold {date}, {time}, {name}); else the ID comes from the content. */
  campaign?: string;
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
