// {{column}} text templates: compiled once, filled per record, placeholders listed for validation.

export interface Template {
  /** Placeholder names in order of first appearance. */
  readonly placeholders: readonly string[];
  fill(lookup: (name: string) => string | undefined): string;
}

const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

export function compileTemplate(source: string): Template {
  const literals: string[] = [];
  const names: string[] = [];
  let last = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    literals.push(source.slice(last, match.index));
    names.push(match[1]!);
    last = match.index + match[0].length;
  }
  literals.push(source.slice(last));
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
  const text = source.replace(PLACEHOLDER, (_match, name: string) => {
    const value = lookup(name);
    if (value === undefined) {
      if (!missing.includes(name)) missing.push(name);
      return '';
    }
    return value;
  });
  return { text, missing };
}
