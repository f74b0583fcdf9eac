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
