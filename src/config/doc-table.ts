// The settings table of docs/configuration.md, rendered from SETTINGS so the page cannot drift from the code.
import { SETTING_KEYS, SETTINGS, type SettingKey } from './table.js';

/** The comments around the generated table in docs/configuration.md. */
export const SETTINGS_START = '<!-- settings:start -->';
export const SETTINGS_END = '<!-- settings:end -->';

/** The command that rewrites the table, for the message of a test that finds it stale. */
export const REGENERATE_COMMAND = 'npm run docs:config';

const HEADER = ['setting', 'flag', 'environment', 'default', 'meaning'];

/** One setting's cells: config key, flag, environment variable, built-in default, help. */
function cells(key: SettingKey): string[] {
  const spec = SETTINGS[key];
  const notes: string[] = [];
  if (spec.secret === true) notes.push('secret: `sms-send config` shows it as `***`');
  if (spec.sendOnly === true) notes.push('the flag only on `send`');
  const help = notes.length === 0 ? spec.help : `${spec.help} (${notes.join('; ')})`;
  return [
    code(key),
    code(spec.flag),
    code(spec.env),
    code(spec.default === undefined ? undefined : JSON.stringify(spec.default)),
    // A pipe would end the cell; a backslash or an angle bracket would be read as markdown.
    help.replace(/[\\|<]/g, (c) => `\\${c}`),
  ];
}

/** A code span, or nothing. A pipe ends a table cell even inside one, so it is escaped there too. */
function code(text: string | undefined): string {
  return text === undefined ? '' : `\`${text.replace(/\|/g, '\\|')}\``;
}

/** The markdown table of every setting, one row each in the table's order, aligned as prettier aligns it. */
export function renderSettingsTable(): string {
  const rows = [HEADER, ...SETTING_KEYS.map(cells)];
  const widths = HEADER.map((_, i) => Math.max(3, ...rows.map((row) => [...row[i]!].length)));
  const line = (row: string[]) =>
    `| ${row.map((cell, i) => cell + ' '.repeat(widths[i]! - [...cell].length)).join(' | ')} |`;
  return [line(rows[0]!), line(widths.map((w) => '-'.repeat(w))), ...rows.slice(1).map(line)].join(
    '\n',
  );
}

/** `page` with the text between the markers replaced by the current table; throws without markers. */
export function withSettingsTable(page: string): string {
  const start = page.indexOf(SETTINGS_START);
  const end = page.indexOf(SETTINGS_END);
  if (start === -1 || end < start) {
    throw new Error(`the page has no ${SETTINGS_START} … ${SETTINGS_END} markers`);
  }
  const before = page.slice(0, start + SETTINGS_START.length);
  return `${before}\n\n${renderSettingsTable()}\n\n${page.slice(end)}`;
}
