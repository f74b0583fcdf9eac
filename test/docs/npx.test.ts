// Every command line in the README and docs/ that runs sms-send through npx names our package or
// refuses to install: `sms-send` on the registry is somebody else's package, which npx would fetch.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGE = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string })
  .name;

/** The README's sections about a clone, where `npm install` has just linked the command. */
const CLONE_SECTIONS = ['## Install', '## Quick start'];

/** Each `npx … sms-send` of a page, with its line and the README section it stands in. */
function npxLines(file: string): { line: number; text: string; section: string }[] {
  const found: { line: number; text: string; section: string }[] = [];
  let section = '';
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (/^## /.test(text)) section = text.trim();
      if (/\bnpx\b(?:\s+-\S+(?:\s+[\w@./-]+)?)*\s+sms-send\b/.test(text)) {
        found.push({ line: i + 1, text, section });
      }
    });
  return found;
}

const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

describe('npx in the README and docs', () => {
  it('the package is not named sms-send, which the registry gives to another package', () => {
    expect(PACKAGE).not.toBe('sms-send');
  });

  it.each(pages)('%s: each npx line names the package or --no-install', (file) => {
    for (const { line, text, section } of npxLines(file)) {
      const safe =
        text.includes(`npx -p ${PACKAGE} sms-send`) ||
        text.includes('npx --no-install sms-send') ||
        (file === 'README.md' && CLONE_SECTIONS.includes(section));
      expect(safe, `${file}:${line}: ${text.trim()}`).toBe(true);
    }
  });

  it('finds the lines it judges: the CI example, the quick start', () => {
    expect(npxLines('docs/cron-and-ci.md').map((l) => l.text.trim())).toContain(
      `run: npx -p ${PACKAGE} sms-send check --json`,
    );
    expect(npxLines('README.md').map((l) => l.text)).toContain(
      'npm install && npx sms-send samples/campaign.csv --simulate',
    );
  });
});
