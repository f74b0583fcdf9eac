// Plain words for the network and library codes a request can end with; the code itself stays in --verbose and --json.

/** Codes of the timeouts; `TIMEOUT` is the client's own deadline on the whole request. */
const TIMEOUTS: Record<string, (within: string) => string> = {
  TIMEOUT: (within) => `no answer ${within} (timeout)`,
  UND_ERR_HEADERS_TIMEOUT: (within) => `no answer ${within} (timeout)`,
  UND_ERR_BODY_TIMEOUT: (within) => `the answer did not finish ${within} (timeout)`,
  UND_ERR_CONNECT_TIMEOUT: (within) => `could not connect ${within} (timeout)`,
  ETIMEDOUT: (within) => `no answer ${within} (timeout)`,
};

const WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found (DNS)',
  EAI_AGAIN: 'DNS lookup failed for now',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection broken',
  ECONNABORTED: 'connection aborted',
  UND_ERR_SOCKET: 'connection closed by the other side',
  UND_ERR_CLOSED: 'connection closed',
  CERT_HAS_EXPIRED: "the gateway's TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the gateway's TLS certificate is self-signed (not trusted)",
  SELF_SIGNED_CERT_IN_CHAIN: "the gateway's TLS certificate chain is self-signed (not trusted)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the gateway's TLS certificate cannot be verified (not trusted)",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    "the gateway's TLS certificate is signed by a CA this machine does not trust",
  ERR_TLS_CERT_ALTNAME_INVALID: "the gateway's TLS certificate is for another host name",
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS handshake failed (is the endpoint really https?)',
  RESPONSE_TOO_LARGE: 'the answer was too large',
  ABORTED: 'abandoned',
};

/** Whether the code is a timeout (its words already say "no answer"). */
export function isTimeout(code: string): boolean {
  return code in TIMEOUTS;
}

/** "connection refused", "no answer within 30s (timeout)"; an unknown code keeps its message. */
export function plainWords(code: string, message: string, timeoutMs?: number): string {
  const timeout = TIMEOUTS[code];
  if (timeout) return timeout(timeoutMs === undefined ? 'in time' : `within ${seconds(timeoutMs)}`);
  return WORDS[code] ?? `${message.charAt(0).toLowerCase()}${message.slice(1)}`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}
