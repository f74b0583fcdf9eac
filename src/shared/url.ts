// URLs as sms-send shows them: a user and password in one (a proxy's, an endpoint's) never printed.

/**
 * `https://user:secret@host/` → `https://***@host/`, wherever a URL stands in the text
 * (`--proxy=http://u:p@host` too).
 */
export function maskUserInfo(text: string): string {
  // Up to the last @ before the host: a password may hold an @ of its own.
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s]*@/gi, '$1***@');
}
