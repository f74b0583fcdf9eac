// The one test for "a JSON object" (not null, not an array) that parsed input is checked with.

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
