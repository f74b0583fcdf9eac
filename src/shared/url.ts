// URLs as sms-send shows them: a user and password in one (a proxy's, an endpoint's) never printed.

/** `https://user:secret@host/` → `https://***@host/`. */
export function maskUserInfo(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1***@');
}
