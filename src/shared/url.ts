// URLs as sms-send shows them: a user and password in one (a proxy's, a database's, an endpoint's)
// never printed, whether the URL is valid or mistyped.

/** `password=secret` in a URL's query (a database URL may carry it there). */
const PASSWORD_PARAMETER = /([?&]password=)[^&#]*/gi;

/**
 * A value that is a URL (a setting's, a flag's), as output shows it: `postgres://***@host/db`. Its
 * user and password go where the URL parser finds them (up to the last @ of its authority), so
 * what the program connects with is what is masked; a value that does not parse is masked up to
 * its last @, whatever it holds (spaces, slashes).
 */
export function maskUrl(value: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/*/i.exec(value)?.[0] ?? '';
  const rest = value.slice(scheme.length);
  const end = URL.canParse(value) ? authorityEnd(rest) : rest.length;
  const at = rest.lastIndexOf('@', end - 1);
  const masked = at === -1 ? value : `${scheme}***${rest.slice(at)}`;
  return masked.replace(PASSWORD_PARAMETER, '$1***');
}

/** Where a URL's authority ends in the text after its scheme: its path, query or fragment. */
function authorityEnd(text: string): number {
  const end = text.search(/[/?#\\]/);
  return end === -1 ? text.length : end;
}

/**
 * Text that may hold URLs (a message, a word of a command line): each `scheme://user:pass@`
 * masked to `scheme://***@`, and a `password=` parameter's value. Words that are not URLs are
 * left as they are: a URL setting's own value is masked whole, with maskUrl.
 */
export function maskUserInfo(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s]*@/gi, '$1***@')
    .replace(PASSWORD_PARAMETER, '$1***');
}
