// Reading the page's own markup back in tests: its elements by tag and class, their attributes, a
// chart by its ID. The page is sms-send's output (no nesting of like elements, attributes quoted),
// which is what lets a few regular expressions read it.

/** Elements `<tag …/>` or `<tag …>…</tag>`, with `cls` among their classes when given. */
export function elements(markup: string, tag: string, cls?: string): string[] {
  const found: string[] = [];
  const open = new RegExp(`<${tag}\\b[^>]*?(/?)>`, 'g');
  for (let match = open.exec(markup); match; match = open.exec(markup)) {
    const start = match.index;
    let end = open.lastIndex;
    if (match[1] !== '/') {
      const close = markup.indexOf(`</${tag}>`, end);
      if (close !== -1) end = close + tag.length + 3;
    }
    const element = markup.slice(start, end);
    const classes = (attributes(element)['class'] ?? '').split(' ');
    if (cls === undefined || classes.includes(cls)) found.push(element);
  }
  return found;
}

/** The attributes of an element's opening tag. */
export function attributes(element: string): Record<string, string> {
  const tag = /^<[^>]*>/.exec(element)?.[0] ?? '';
  const result: Record<string, string> = {};
  for (const [, name, value] of tag.matchAll(/([\w-]+)(?:="([^"]*)")?/g)) {
    if (name !== undefined && !tag.startsWith(`<${name}`)) result[name] = value ?? '';
  }
  return result;
}

/** The chart `<svg>` whose title has the ID `${id}-t`. */
export function chartOf(page: string, id: string): string {
  const chart = elements(page, 'svg').find((svg) => svg.includes(`<title id="${id}-t">`));
  if (chart === undefined) throw new Error(`no chart ${id} in the page`);
  return chart;
}

/** The points of a chart's line, from its path's M and L commands. */
export function pathPoints(chart: string): Array<[number, number]> {
  const d = attributes(elements(chart, 'path', 'line')[0] ?? '<path>')['d'] ?? '';
  return [...d.matchAll(/[ML]([\d.-]+) ([\d.-]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
}
