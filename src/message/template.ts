// {{column}} text templates (\{{ for a literal {{): compiled once, filled per record, placeholders listed.

export interface Template {
  /** Placeholder names in order of first appearance. */
  readonly placeholders: readonly string[];
  fill(lookup: (name: string) => string | undefined): string;
}

// \{{ is an escape for a literal {{ (texts may need braces, and data must be able to hold them);
// it is matched first, so the braces after it never start a placeholder.
const ESCAPE = '\\{{';
const PLACEHOLDER = /\\\{\{|\{\{\s*([^{}]+?)\s*\}\}/g;

export function compileTemplate(source: string): Template {
  const literals: string[] = [];
  const names: string[] = [];
  let literal = '';
  let last = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    literal += source.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[0] === ESCAPE) {
      literal += '{{';
      continue;
    }
    literals.push(literal);
    literal = '';
    names.push(match[1]!);
  }
  literals.push(literal + source.slice(last));
  const placeholders = [...new Set(names)];
  return {
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
  const missing: string[] = [];
  const text = source.replace(PLACEHOLDER, (_match, name: string | undefined) => {
    if (name === undefined) return '{{';
    const value = lookup(name);
    if (value === undefined) {
      if (!missing.includes(name)) missing.push(name);
      return '';
    }
    return value;
  });
  return { text, missing };
}
