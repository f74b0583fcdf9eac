// Every relative link and #anchor in the README and docs/ leads somewhere: a file that exists, and a heading it has.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The README and every page of docs/, as paths relative to the repository. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

/** The text outside fenced code blocks and code spans, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^ *(```|~~~)[^]*?^ *\1 *$/gm, '').replace(/(`+)[^`][^]*?\1/g, '');
}

/** GitHub's anchor for a heading: lowercase, punctuation removed, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings; a repeated heading gets -1, -2 … as on GitHub. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const withoutCode = markdown.replace(/^ *(```|~~~)[^]*?^ *\1 *$/gm, '');
  for (const [, text] of withoutCode.matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const base = slug(text!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every link of `markdown` (a page at `from`) that leads nowhere, with the reason. */
function brokenLinks(
  from: string,
  markdown: string,
  read: (path: string) => string | undefined,
): string[] {
  const broken: string[] = [];
  for (const [, target] of prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto: …
    const [path, anchor] = target!.split('#', 2) as [string, string | undefined];
    const file = path === '' ? from : join(dirname(from), decodeURIComponent(path));
    const text = read(file);
    if (text === undefined) {
      broken.push(`${from}: (${target}): ${file} does not exist`);
    } else if (anchor !== undefined && !anchors(text).has(anchor)) {
      broken.push(`${from}: (${target}): ${file} has no heading #${anchor}`);
    }
  }
  return broken;
}

/** A file's text as the link checker reads it: '' for a folder, undefined when there is none. */
function readFromRepository(path: string): string | undefined {
  const full = join(ROOT, path);
  if (relative(ROOT, full).startsWith('..') || !existsSync(full)) return undefined;
  try {
    return readFileSync(full, 'utf8');
  } catch {
    return ''; // a folder: it exists, and has no headings
  }
}

describe('links in the README and docs/', () => {
  it('every relative link and #anchor resolves', () => {
    const broken = pages().flatMap((page) =>
      brokenLinks(page, readFileSync(join(ROOT, page), 'utf8'), readFromRepository),
    );
    expect(broken).toEqual([]);
  });

  it('the README links to every page of docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const missing = pages()
      .filter((page) => page !== 'README.md')
      .filter((page) => !readme.includes(`](${page}`));
    expect(missing).toEqual([]);
  });
});

/** Every source file of src/, test/, bench/ and scripts/, but this one (its examples lead nowhere). */
function sources(): string[] {
  const self = relative(ROOT, fileURLToPath(import.meta.url));
  return ['src', 'test', 'bench', 'scripts']
    .flatMap((top) =>
      readdirSync(join(ROOT, top), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && /\.(ts|js)$/.test(entry.name))
        .map((entry) => relative(ROOT, join(entry.parentPath, entry.name))),
    )
    .filter((path) => path !== self && !path.startsWith('test/fixtures/'));
}

describe('docs cited by the code', () => {
  it('every docs/ page and #anchor a comment names exists', () => {
    const broken: string[] = [];
    for (const path of sources()) {
      const text = readFileSync(join(ROOT, path), 'utf8');
      for (const [cited, page, anchor] of text.matchAll(/\bdocs\/([\w-]+\.md)(?:#([\w-]+))?/g)) {
        const target = readFromRepository(`docs/${page}`);
        if (target === undefined) broken.push(`${path}: ${cited}: no such page`);
        else if (anchor !== undefined && !anchors(target).has(anchor)) {
          broken.push(`${path}: ${cited}: no such heading`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the link checker', () => {
  const files: Record<string, string> = {
    'README.md': '# sms-send\n\n## Exit codes\n',
    'docs/a.md': [
      '# A',
      '## Price, `--max-cost` and `--max-segments`',
      '## Journal and resume',
      '## Journal and resume',
      '```sh',
      '# not a heading',
      '```',
    ].join('\n'),
  };
  const read = (path: string) => files[path];

  it('makes anchors as GitHub does', () => {
    expect(slug('Price, `--max-cost` and `--max-segments`')).toBe(
      'price---max-cost-and---max-segments',
    );
    expect(slug('Never twice: campaigns and state')).toBe('never-twice-campaigns-and-state');
    expect(slug('The report and outcomes')).toBe('the-report-and-outcomes');
    expect(slug('`report FILE`')).toBe('report-file');
  });

  it('accepts links that resolve, and skips code and absolute URLs', () => {
    const page = [
      '[a](a.md) [b](a.md#journal-and-resume-1) [c](#a) [d](../README.md#exit-codes)',
      '[e](a.md#price---max-cost-and---max-segments) [f](https://example.com/x#y)',
      '`[g](nowhere.md)`',
      '```md',
      '[h](nowhere.md)',
      '```',
    ].join('\n');
    expect(brokenLinks('docs/a.md', page, read)).toEqual([]);
  });

  it('names a missing file and a missing anchor', () => {
    const page = '[a](b.md) [b](a.md#not-a-heading) [c](#not-a-heading-2) [d](a.md#not-a-heading)';
    expect(brokenLinks('docs/a.md', page, read)).toEqual([
      'docs/a.md: (b.md): docs/b.md does not exist',
      'docs/a.md: (a.md#not-a-heading): docs/a.md has no heading #not-a-heading',
      'docs/a.md: (#not-a-heading-2): docs/a.md has no heading #not-a-heading-2',
      'docs/a.md: (a.md#not-a-heading): docs/a.md has no heading #not-a-heading',
    ]);
  });
});
