// Depth and size limits on nested input values, walked without recursion so hostile input cannot overflow the stack.

/**
 * Objects and arrays nested inside one input value, at most. CustomData is meant for flat
 * key/value pairs ({"qos": 1} is depth 1); 32 leaves room for any sane structure while
 * keeping every later JSON.stringify (spool, journal, request) far from the call-stack limit.
 */
export const MAX_NESTING = 32;

/** A message's CustomData as JSON, in UTF-16 units: many times any real key/value set. */
export const MAX_CUSTOM_DATA = 4096;

/** Any other nested input value as JSON: only a column used in a text or field is ever sent. */
export const MAX_NESTED_VALUE = 65_536;

/** Undefined when the value is within the limits, otherwise the reason. */
export function checkNested(value: unknown, maxLength: number): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (nestedDeeperThan(value, MAX_NESTING)) {
    return `is nested more than ${MAX_NESTING} levels deep (at most ${MAX_NESTING})`;
  }
  // Within the depth limit, JSON.stringify is safe; its length is the size on the wire.
  const length = JSON.stringify(value).length;
  return length > maxLength ? `is ${length} characters as JSON (at most ${maxLength})` : undefined;
}

/** Iterative depth-first walk that stops as soon as the limit is passed. */
function nestedDeeperThan(root: object, limit: number): boolean {
  const stack: [object, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > limit) return true;
    for (const child of Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child as object, depth + 1]);
    }
  }
  return false;
}
