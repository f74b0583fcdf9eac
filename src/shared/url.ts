// URLs as sms-send shows them: a user and password in one (a proxy's, a database's, an endpoint's)
// never printed, whether the URL is valid or mistyped.

/**
 * `https://user:secret@host/` → `https://***@host/`, wherever a URL stands in the text (a word of
 * a command line, `--proxy=http://u:p@host`, a sentence), valid or not (`postgres//u:p@host`,
 * `u:p@host`); and a `password=` parameter's value. An address without a `:` or `//` before its
 * @ (`name@example.com`) is left as it is.
 */
export function maskUserInfo(text: string): string {
  return text
    .split(/(\s+)/)
    .map(maskWord)
    .join('')
    .replace(/([?&]password=)[^&\s'"]*/gi, '$1***');
}

function maskWord(word: string): string {
  // Up to the last @: a password may hold an @ (or a /) of its own.
  const at = word.lastIndexOf('@');
  if (at === -1) return word;
  const before = word.slice(0, at);
  const slashes = before.indexOf('//');
  if (slashes === -1 && !before.includes(':')) return word;
  const start =
    slashes !== -1
      ? slashes + 2
      : /^--[\w-]+=/.test(word)
        ? word.indexOf('=') + 1
        : /^['"]/.test(word)
          ? 1
          : 0;
  return `${word.slice(0, start)}***${word.slice(at)}`;
}
