// Masks the password in every form a gateway or library may echo it: raw, escaped, encoded.

/** Replaces each form of the secret; text bound for output, reports and journals passes it. */
export type Redact = (text: string) => string;

export const MASK = '***';

/**
 * A form shorter than this is left alone: a password of one to three characters would mask
 * ordinary words ("Acce***ted"), and such a password protects nothing anyway.
 */
const MIN_FORM_LENGTH = 4;

/**
 * The password as it appears in the request (JSON-escaped once), in a JSON answer quoting that
 * request (twice), in an answer's parsed strings (raw), in HTML or XML error pages, in CSV, in a
 * URL or form body, and in the Basic credentials some libraries log (`base64(user:password)`).
 * Each escaped form is also taken of the JSON-escaped ones, since an error page may quote the
 * JSON request body.
 */
export function secretForms(username: string, password: string): string[] {
  if (password === '') return [];
  const once = jsonEscape(password);
  const bases = [password, once, jsonEscape(once), jsonEscapeAscii(password)];
  const forms = new Set<string>();
  for (const base of bases) {
    forms.add(base);
    forms.add(base.replaceAll('"', '""')); // CSV
    forms.add(xmlEscape(base, '&quot;', '&apos;'));
    forms.add(xmlEscape(base, '&#34;', '&#39;'));
    forms.add(xmlEscape(base, '"', "'")); // in element text, quotes may stay raw
    forms.add(percentEncode(base));
    forms.add(new URLSearchParams({ p: base }).toString().slice(2)); // form body: space as +
  }
  for (const secret of [`${username}:${password}`, password]) {
    // Unpadded, so the form matches whether or not `=` padding follows it.
    forms.add(Buffer.from(secret, 'utf8').toString('base64').replace(/=+$/, ''));
  }
  return [...forms].filter((form) => form.length >= MIN_FORM_LENGTH);
}

/**
 * One regular expression for every form, longest first so a doubly escaped form is masked
 * whole rather than around a shorter form inside it. Built once per client.
 */
export function redactor(username: string, password: string): Redact {
  const forms = secretForms(username, password).sort((a, b) => b.length - a.length);
  if (forms.length === 0) return (text) => text;
  const pattern = new RegExp(forms.map(escapeRegExp).join('|'), 'g');
  return (text) => text.replace(pattern, MASK);
}

function jsonEscape(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** JSON as encoders that keep to ASCII write it (Python's json.dumps, many loggers): \u00e9. */
function jsonEscapeAscii(text: string): string {
  return jsonEscape(text).replace(
    /[^\x20-\x7e]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function xmlEscape(text: string, quot: string, apos: string): string {
  return text.replace(/[&<>"']/g, (ch) =>
    ch === '&' ? '&amp;' : ch === '<' ? '&lt;' : ch === '>' ? '&gt;' : ch === '"' ? quot : apos,
  );
}

/** encodeURIComponent, except that a lone surrogate (which it refuses) leaves the form out. */
function percentEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '';
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
