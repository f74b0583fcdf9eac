// The words each network or library code is shown in: what a person reads instead of UND_ERR_….
import { describe, expect, it } from 'vitest';
import { tlsKey } from '../../src/gateway/client.js';
import { isTimeout, plainWords } from '../../src/gateway/words.js';

describe('plainWords', () => {
  it.each([
    ['ECONNREFUSED', undefined, 'connection refused'],
    ['ENOTFOUND', undefined, 'host not found (DNS)'],
    ['EAI_AGAIN', undefined, 'DNS lookup failed for now'],
    ['EHOSTUNREACH', undefined, 'host unreachable'],
    ['ENETUNREACH', undefined, 'network unreachable'],
    ['ECONNRESET', undefined, 'connection reset'],
    ['EPIPE', undefined, 'connection broken'],
    ['ECONNABORTED', undefined, 'connection aborted'],
    ['UND_ERR_SOCKET', undefined, 'connection closed by the other side'],
    ['UND_ERR_CLOSED', undefined, 'connection closed'],
    ['CERT_HAS_EXPIRED', undefined, "the gateway's TLS certificate has expired"],
    [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      undefined,
      "the gateway's TLS certificate is self-signed (not trusted)",
    ],
    [
      'SELF_SIGNED_CERT_IN_CHAIN',
      undefined,
      "the gateway's TLS certificate chain is self-signed (not trusted)",
    ],
    [
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      undefined,
      "the gateway's TLS certificate cannot be verified (not trusted)",
    ],
    [
      'ERR_TLS_CERT_ALTNAME_INVALID',
      undefined,
      "the gateway's TLS certificate is for another host name",
    ],
    [
      'ERR_SSL_WRONG_VERSION_NUMBER',
      undefined,
      'TLS handshake failed (is the endpoint really https?)',
    ],
    ['RESPONSE_TOO_LARGE', undefined, 'the answer was too large'],
    ['ABORTED', undefined, 'abandoned'],
    ['UND_ERR_HEADERS_TIMEOUT', 30_000, 'no answer within 30s (timeout)'],
    ['TIMEOUT', 3000, 'no answer within 3s (timeout)'],
    ['TIMEOUT', 1500, 'no answer within 1.5s (timeout)'],
    ['UND_ERR_BODY_TIMEOUT', 30_000, 'the answer did not finish within 30s (timeout)'],
    ['UND_ERR_CONNECT_TIMEOUT', 10_000, 'could not connect within 10s (timeout)'],
    ['ETIMEDOUT', undefined, 'no answer in time (timeout)'],
    ['SOMETHING_NEW', undefined, 'Some library message'.replace(/^S/, 's')],
  ])('%s (timeout %s) → %s', (code, timeoutMs, words) => {
    expect(plainWords(code, 'Some library message', timeoutMs)).toBe(words);
  });

  it.each([
    ['TIMEOUT', true],
    ['UND_ERR_HEADERS_TIMEOUT', true],
    ['ECONNRESET', false],
  ])('isTimeout(%s) is %s', (code, expected) => {
    expect(isTimeout(code)).toBe(expected);
  });
});

describe('tlsKey', () => {
  it('is the same for the client (hostname, port) and the diagnostics message', () => {
    // undici's connectParams.host may carry the port already ("gw.example:443"); hostname does not.
    expect(tlsKey('gw.example', 443)).toBe(tlsKey('gw.example', '443'));
    expect(tlsKey('gw.example', '443')).toBe('gw.example:443');
  });
});
