// {{column}} text templates (\{{ for a literal {{, \{ for a literal {): compiled once, filled per
// record, placeholders listed.

export interface Template {
  /** The template as written, so a worker thread can compile it again. */
  readonly source: string;
  /** Placeholder names in order of first appearance. */
  readonly placeholders: readonly string[];
  fill(lookup: (name: string) => string | undefined): string;
}

// \{{ is an escape for a literal {{ (texts may need braces, and data must be able to hold them),
// and \{ for a literal { (a `{word}` meant as written, which is otherwise taken for a typo); they
// are matched first, so the braces after them never start a placeholder.
const ESCAPES: Record<string, string> = { '\\{{': '{{', '\\{': '{' };
const PLACEHOLDER = /\\\{\{?|\{\{\s*([^{}]+?)\s*\}\}/g;

export function compileTemplate(source: string): Template {
  const literals: string[] = [];
  const names: string[] = [];
  let literal = '';
  let last = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    literal += source.slice(last, match.index);
    last = match.index + match[0].length;
    const escaped = ESCAPES[match[0]];
    if (escaped !== undefined) {
      literal += escaped;
      continue;
    }
    literals.push(literal);
    literal = '';
    names.push(match[1]!);
  }
  literals.push(literal + source.slice(last));
  const placeholders = [...new Set(names)];
  return {
    source,
    placeholders,
    fill(lookup) {
      let out = literals[0]!;
      for (let i = 0; i < names.length; i++) {
        out += (lookup(names[i]!) ?? '') + literals[i + 1]!;
      }
      return out;
    },
  };
}

/**
 * Fills a text once without compiling it, for texts that are their own template (one per row).
 * Returns the names that had no value, so the caller can report them.
 */
export function fillOnce(
  source: string,
  lookup: (name: string) => string | undefined,
): { text: string; missing: string[] } {
  // A hand scan rather than PLACEHOLDER.replace(): it runs once per record (docs/benchmark.md).
  // It matches exactly what the regular expression does (test/message/template.test.ts).
  const missing: string[] = [];
  let text = '';
  let last = 0;
  let at = nextBrace(source, 0);
  while (at !== -1) {
    if (source.charCodeAt(at) === BACKSLASH) {
      if (source.charCodeAt(at + 1) === OPEN) {
        const double = source.charCodeAt(at + 2) === OPEN;
        text += source.slice(last, at) + (double ? '{{' : '{');
        last = at + (double ? 3 : 2);
        at = nextBrace(source, last);
      } else at = nextBrace(source, at + 1);
      continue;
    }
    // `{{` then one or more characters other than braces, then `}}`.
    if (source.charCodeAt(at + 1) !== OPEN) {
      at = nextBrace(source, at + 1);
      continue;
    }
    let end = at + 2;
    while (end < source.length) {
      const ch = source.charCodeAt(end);
      if (ch === OPEN || ch === CLOSE) break;
      end++;
    }
    if (
      end === at + 2 ||
      source.charCodeAt(end) !== CLOSE ||
      source.charCodeAt(end + 1) !== CLOSE
    ) {
      at = nextBrace(source, at + 1);
      continue;
    }
    const inner = source.slice(at + 2, end);
    // The expression's \s* on either side takes all the white space it can but one character.
    const name = inner.trim() || inner.slice(-1);
    const value = lookup(name);
    if (value === undefined && !missing.includes(name)) missing.push(name);
    text += source.slice(last, at) + (value ?? '');
    last = end + 2;
    at = nextBrace(source, last);
  }
  return { text: last === 0 ? source : text + source.slice(last), missing };
}

const OPEN = 123;
const CLOSE = 125;
const BACKSLASH = 92;

/** Where a placeholder or an escape could start, from `from` on; -1 when nowhere. */
function nextBrace(source: string, from: number): number {
  const brace = source.indexOf('{', from);
  const slash = source.indexOf('\\', from);
  if (slash === -1 || (brace !== -1 && brace < slash)) return brace;
  return slash;
}
