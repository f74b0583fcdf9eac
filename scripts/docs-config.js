// Rewrites the settings table in docs/configuration.md from the settings table (src/config/table.ts).
// Run it as `npm run docs:config`, which builds first: the table is read from dist/.
import { readFileSync, writeFileSync } from 'node:fs';

const { withSettingsTable } = await import('../dist/config/doc-table.js');
const page = new URL('../docs/configuration.md', import.meta.url);
const before = readFileSync(page, 'utf8');
const after = withSettingsTable(before);
if (after === before) {
  process.stdout.write('docs/configuration.md: the settings table is up to date\n');
} else {
  writeFileSync(page, after);
  process.stdout.write('docs/configuration.md: settings table rewritten\n');
}
