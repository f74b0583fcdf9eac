// The name a mistyped one was most likely meant to be: a column for a placeholder, a command.

/**
 * Edits (insert, delete, replace, swap two neighbours) between `a` and `b`, case-insensitive;
 * stops counting past `limit` and answers `limit + 1`.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  if (Math.abs(s.length - t.length) > limit) return limit + 1;
  // Three rows of the optimal-string-alignment table: two back for the swap.
  let before = new Array<number>(t.length + 1).fill(0);
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  let current = new Array<number>(t.length + 1).fill(0);
  for (let i = 1; i <= s.length; i++) {
    current[0] = i;
    let best = i;
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        d = Math.min(d, before[j - 2]! + 1);
      }
      current[j] = d;
      best = Math.min(best, d);
    }
    if (best > limit) return limit + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[t.length]!;
}

/** How far a name may be from a column to be taken for it: one edit, two from five letters on. */
function allowance(name: string): number {
  return name.length >= 5 ? 2 : 1;
}

/**
 * The name `name` is most likely meant to be (itself, whatever its case, first), if any: a
 * column for a placeholder, a command for a mistyped one.
 */
export function nearestName(name: string, names: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const same = names.find((c) => c.toLowerCase() === lower);
  if (same !== undefined) return same;
  let best: string | undefined;
  let bestDistance = allowance(name) + 1;
  for (const candidate of names) {
    const d = editDistance(name, candidate, allowance(name));
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
