// docs/configuration.md's settings table is generated from src/config/table.ts; a stale one fails here.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { describe, expect, it } from 'vitest';
import {
  REGENERATE_COMMAND,
  renderSettingsTable,
  SETTINGS_END,
  SETTINGS_START,
  withSettingsTable,
} from '../../src/config/doc-table.js';
import { SETTING_KEYS } from '../../src/config/table.js';

const PAGE = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));

describe('the settings table of docs/configuration.md', () => {
  it('is the table the settings table generates', () => {
    const page = readFileSync(PAGE, 'utf8');
    expect(
      page,
      `docs/configuration.md: the settings table is stale; run ${REGENERATE_COMMAND}`,
    ).toBe(withSettingsTable(page));
  });

  it('has one row per setting, secrets marked', () => {
    const rows = renderSettingsTable()
      .split('\n')
      .slice(2)
      .map((row) => row.slice(2).split(' | ')[0]!.trim().replace(/^`|`$/g, ''));
    expect(rows).toEqual(SETTING_KEYS);
    expect(renderSettingsTable()).toMatch(/^\| `password` .*secret: `sms-send config` shows it/m);
  });

  it('is laid out as prettier lays it out, so the check of formatting passes after a rewrite', async () => {
    const table = renderSettingsTable();
    const options = { ...(await resolveConfig(PAGE)), filepath: PAGE };
    expect(await format(`${table}\n`, options)).toBe(`${table}\n`);
  });

  it('is rewritten between its markers, and only there', () => {
    const page = `# Page\n\nbefore\n\n${SETTINGS_START}\nold table\n${SETTINGS_END}\n\nafter\n`;
    expect(withSettingsTable(page)).toBe(
      `# Page\n\nbefore\n\n${SETTINGS_START}\n\n${renderSettingsTable()}\n\n${SETTINGS_END}\n\nafter\n`,
    );
    expect(() => withSettingsTable('# Page\n')).toThrow(/settings:start/);
  });
});
