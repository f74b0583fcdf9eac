// Generated MessageIds: deterministic for the same input so a resumed run reuses them.

/**
 * `<campaign key>-<row in base 36>`: unique within the campaign by construction (rows are unique),
 * the same on every run of the same input, printable, and at most 10 + 1 + 11 characters.
 */
export function generateMessageId(campaignKey: string, row: number): string {
  return `${campaignKey}-${row.toString(36)}`;
}

/** Ids the user supplies must also fit the gateway's 32 printable ASCII characters. */
export function checkMessageId(id: string): string | undefined {
  if (id.length > 32) return `is ${id.length} characters (at most 32)`;
  if (!/^[\x21-\x7e]+$/.test(id)) return 'must be printable ASCII without spaces';
  return undefined;
}
