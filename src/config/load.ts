// Finds and reads the config file with cosmiconfig; checking it is schema.ts's job.
import { cosmiconfig } from 'cosmiconfig';
import { UsageError } from '../shared/errors.js';

export const MODULE_NAME = 'sms-send';

/** Explicit so a stray config format never changes behaviour between versions. */
export const SEARCH_PLACES = [
  'package.json',
  '.sms-sendrc',
  '.sms-sendrc.json',
  '.sms-sendrc.yaml',
  '.sms-sendrc.yml',
  'sms-send.config.js',
  'sms-send.config.mjs',
  'sms-send.config.cjs',
];

export interface LoadedConfig {
  filepath: string;
  raw: unknown;
}

/**
 * Loads `explicitPath` when given, else searches upward from `cwd` to the home folder (or to the
 * root, outside it), then in the user's `$XDG_CONFIG_HOME/sms-send/` (`config.json` and the other
 * names cosmiconfig knows): cosmiconfig's global strategy, so a cron job run from `/` still finds
 * the user's settings, and a project's own config wins over them.
 */
export async function loadConfigFile(
  cwd: string,
  explicitPath?: string,
): Promise<LoadedConfig | undefined> {
  const explorer = cosmiconfig(MODULE_NAME, {
    searchPlaces: SEARCH_PLACES,
    searchStrategy: 'global',
    cache: false,
  });
  try {
    const result = explicitPath ? await explorer.load(explicitPath) : await explorer.search(cwd);
    if (!result) return undefined;
    return { filepath: result.filepath, raw: result.isEmpty ? {} : result.config };
  } catch (error) {
    const where = explicitPath ?? cwd;
    const reason = error instanceof Error ? error.message : String(error);
    if (explicitPath && (error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new UsageError(`config file ${explicitPath} does not exist`, 'config');
    }
    throw new UsageError(`cannot read config (${where}): ${reason}`, 'config');
  }
}
