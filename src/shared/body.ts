// Reads an HTTP request body up to a cap, for both servers (the simulator and the dlr receiver).
import type { IncomingMessage } from 'node:http';

export type CappedBody =
  | { kind: 'body'; body: Buffer }
  /** Known as soon as the declared length or the bytes read pass the cap; the rest is discarded. */
  | { kind: 'too-large' }
  /** The client went away before the body ended. */
  | { kind: 'aborted' };

/**
 * Collects the body, or settles early with 'too-large' so the server can answer 413 without
 * buffering an oversized request. Never rejects: a client that vanishes is 'aborted'.
 */
export function readCappedBody(req: IncomingMessage, maxBytes: number): Promise<CappedBody> {
  return new Promise((resolve) => {
    // A client may reset mid-body; that is an outcome here, never an uncaught error.
    req.on('error', () => undefined);
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBytes) {
      resolve({ kind: 'too-large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: CappedBody) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        settle({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      // One chunk is the common case for a small request: no copy.
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      settle({ kind: 'body', body });
    });
    req.on('close', () => settle({ kind: 'aborted' }));
  });
}
