// Renders `sms-send config`: each setting, its value and where it came from, in aligned columns.
import type { ChalkInstance } from 'chalk';
import { envName } from '../../config/env.js';
import { formatTable } from './table.js';

export interface ConfigView {
  file?: string;
  profile?: string;
  rows: readonly [key: string, value: unknown, source: string | undefined][];
}

export function renderConfig(view: ConfigView, c: ChalkInstance): string {
  const table = formatTable(
    view.rows.map(([key, value, source]) => [
      key,
      value === undefined ? '(unset)' : JSON.stringify(value),
      // The variable itself, so the reader knows which one to change.
      `← ${source === 'env' ? envName(key) : (source ?? 'default')}`,
    ]),
    {
      indent: '  ',
      paint: (cell, column, row) =>
        column === 2 || view.rows[row]![1] === undefined ? c.dim(cell) : cell,
    },
  );
  return [
    `${c.bold('config file')}  ${view.file ?? c.dim('(none found)')}`,
    `${c.bold('profile')}      ${view.profile ?? c.dim('(none)')}`,
    '',
    ...table,
  ].join('\n');
}

/** `sms-send config --profiles`: each profile of the config file and the keys it sets. */
export function renderProfiles(
  file: string | null,
  profiles: Record<string, string[]>,
  c: ChalkInstance,
): string {
  if (file === null) return 'no config file found, so no profiles';
  const names = Object.keys(profiles);
  if (names.length === 0) return `${file} defines no profiles`;
  return [
    `${c.bold('profiles in')} ${file}`,
    ...formatTable(
      names.map((name) => [name, profiles[name]!.join(', ') || '(sets nothing)']),
      { indent: '  ', paint: (cell, column) => (column === 1 ? c.dim(cell) : cell) },
    ),
    c.dim('Choose one with --profile NAME or SMS_SEND_PROFILE.'),
  ].join('\n');
}
