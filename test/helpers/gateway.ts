// A gateway of the tests' own, on loopback: it accepts every message of every RestSmsRequest and
// logs its MessageId and recipient, and says nothing of being sms-send's simulator, so a campaign
// sent to it is a real one (not a rehearsal). The log is the witness of "nothing twice".
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoggedMessage {
  messageId: string;
  to: string;
}

export interface TestGateway {
  url: string;
  /** Every message accepted, in order. */
  readonly log: LoggedMessage[];
  /** Recipients that got more than one message. */
  twice(): string[];
  /** Answers after this many milliseconds (to stop a run mid-way). */
  latency(ms: number): void;
  /**
   * Once this many messages are logged, answers 503 to every request (logging nothing): a run
   * with `--retries 0 --outage-grace 0` stops there (exit 3), unfinished. Undefined: never.
   */
  refuseFrom(count: number | undefined): void;
  close(): Promise<void>;
}

export async function startGateway(): Promise<TestGateway> {
  const log: LoggedMessage[] = [];
  let transaction = 0;
  let delay = 0;
  let refusing: number | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (refusing !== undefined && log.length >= refusing) {
        res.writeHead(503, { 'content-type': 'text/plain' });
        res.end('unavailable');
        return;
      }
      const request = JSON.parse(body) as {
        Messages: { MessageId?: string; DestinationAddress: number | string }[];
      };
      const messages = request.Messages.map((m) => {
        log.push({ messageId: m.MessageId ?? '', to: String(m.DestinationAddress) });
        return {
          StatusCode: 0,
          StatusDescription: 'OK',
          MessageId: m.MessageId ?? '',
          TransactionId: `TX${++transaction}`,
        };
      });
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ProcessResult: true, Messages: messages }));
      }, delay);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    twice() {
      const seen = new Map<string, number>();
      for (const { to } of log) seen.set(to, (seen.get(to) ?? 0) + 1);
      return [...seen].filter(([, n]) => n > 1).map(([to]) => to);
    },
    latency(ms) {
      delay = ms;
    },
    refuseFrom(count) {
      refusing = count;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
