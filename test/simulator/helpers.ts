// Shared helpers for the simulator tests: a plain-fetch client and message builders.
import { vi } from 'vitest';
import http from 'node:http';
import type { RestSmsMessageReq, RestSmsResponse } from '../../src/gateway/types.js';
import { OPERATION_PATH } from '../../src/gateway/types.js';
import type { Simulator } from '../../src/simulator/index.js';

export const USERNAME = 'customer-42';
export const PASSWORD = 's3cret-Pa55word';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

/** POSTs a raw body to the operation (or another path) and returns status, headers and text. */
export async function postRaw(
  sim: Simulator,
  body: string,
  options: { path?: string; headers?: Record<string, string>; method?: string } = {},
): Promise<Reply> {
  const response = await fetch(sim.url + (options.path ?? OPERATION_PATH), {
    method: options.method ?? 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...options.headers },
    body: options.method === 'GET' || options.method === 'HEAD' ? null : body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** node:http, for requests fetch cannot make: no Accept header at all, or a lying Content-Length. */
export function nodeRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: options.method ?? 'POST',
      headers: options.headers,
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

/** Sends a RestSmsRequest with the test credentials unless the body overrides them. */
export async function send(
  sim: Simulator,
  messages: unknown[],
  extra: Record<string, unknown> = {},
): Promise<Reply & { json: RestSmsResponse }> {
  const body = JSON.stringify({
    Username: USERNAME,
    Password: PASSWORD,
    Messages: messages,
    ...extra,
  });
  const reply = await postRaw(sim, body);
  return { ...reply, json: JSON.parse(reply.text) as RestSmsResponse };
}

/** A message every rule accepts; overrides set or (with undefined) remove fields. */
export function message(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const base: RestSmsMessageReq = {
    Gateway: 99700999,
    DestinationAddress: 4741234567,
    Price: 0,
    UserData: 'Hello from the simulator tests',
    MessageId: 'm1',
  };
  const result: Record<string, unknown> = { ...base, ...overrides };
  for (const key of Object.keys(result)) if (result[key] === undefined) delete result[key];
  return result;
}

/** n distinct valid messages with MessageIds `${prefix}1..n`. */
export function messages(n: number, prefix = 'm'): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) =>
    message({ MessageId: `${prefix}${i + 1}`, DestinationAddress: 4790000000 + i }),
  );
}

/** Waits (without asserting on time) until a condition holds, e.g. a request has been recorded. */
export async function until(condition: () => boolean, what: string): Promise<void> {
  await vi.waitFor(
    () => {
      if (!condition()) throw new Error(`gave up waiting for ${what}`);
    },
    { timeout: 5_000, interval: 10 },
  );
}
