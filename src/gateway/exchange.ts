// One HTTP exchange with the gateway as the client saw it: what the client hands the outcome rules.

/** What one HTTP exchange produced, before any interpretation. */
export type Exchange =
  | {
      kind: 'response';
      status: number;
      headers: Record<string, string>;
      body: string;
      latencyMs: number;
    }
  | {
      kind: 'error';
      code: string;
      message: string;
      latencyMs: number;
      /** True once the whole request was written: from then on the gateway may have processed it. */
      requestSent: boolean;
      /** The client's timeout, so the words can say "within 30s". */
      timeoutMs?: number;
      /** The proxy the request went through (its password masked): a refusal names it. */
      proxy?: string;
      /** The gateway's host:port, for the words of a certificate it was refused for. */
      host?: string;
      /**
       * What a certificate refused for another name is for (its altnames, or its CN): Node's
       * message lists only the IP addresses it carries when the endpoint is an IP address.
       */
      certNames?: string;
    };
