// Is the gateway reachable and are the credentials good: the check without a terminal, shared by
// `sms-send check` and the programmatic API. Sends nothing by default; with `to`, one test message;
// with `awaitMs` as well, waits for its delivery report (the canary).
import type { Settings } from '../config/settings.js';
import { systemClock } from '../shared/clock.js';
import type { CanaryReports, CanaryResult } from '../dlr/canary.js';
import type { DlrReceiver } from '../dlr/receiver.js';
import { closeState, openState } from '../journal/open-store.js';
import { CANARY, type DlrSigner } from '../shared/dlr-proof.js';
import { keptCanary } from './kept-canary.js';
import { checkGateway, type CheckResult, type TestMessage } from '../gateway/check.js';
import { buildMessage } from '../message/build.js';
import { planColumns } from '../message/columns.js';
import { ExitCode, GatewayUnusableError, UsageError, type SmsSendError } from '../shared/errors.js';
import type { DeliveryReportOptions } from '../simulator/index.js';
import {
  isLoopbackUrl,
  openGateway,
  type GatewayAccess,
  type GatewayChoice,
  type GatewayRun,
} from './target.js';

/** How long after acceptance the simulator behind `simulate` reports: quick, but after the answer. */
const SIMULATED_DLR_DELAY_MS = 100;

export interface CheckRequest {
  /** Send one test message to this recipient. */
  to?: string;
  /** Its text (default: `sms-send check <time>`). */
  text?: string;
  /** With `to`: wait this long after acceptance for the test message's delivery report. */
  awaitMs?: number;
  /** Where the gateway can reach the delivery-report receiver (needed unless it is on this machine). */
  dlrPublicUrl?: string;
  /** The receiver's port (default: any free one). */
  dlrPort?: number;
  /** With `simulate`: the statuses the simulator reports, e.g. `{ DELIVRD: 1 }`. */
  dlrMix?: DeliveryReportOptions['statusMix'];
}

/** Lines a terminal shows while the canary waits. */
export interface CanaryListener {
  start?(at: CanaryStart): void;
  accepted?(result: CheckResult, acceptedAfterMs: number): void;
  interim?(status: string, afterMs: number): void;
}

/** Where the test message goes, and where its delivery report is heard of. */
export interface CanaryStart {
  to: string;
  endpoint: string;
  /** Where the gateway sends the report. */
  reportsTo: string;
  /** The check's own receiver, as it listens; absent when the fleet's receivers take the report. */
  receiver?: string;
  /** The database the fleet's receivers keep the report in, where the check reads it. */
  keptIn?: string;
}

export interface CheckDocument {
  check: CanaryResult;
}

/** The check against a target: the gateway's answer, and with `awaitMs` the delivery. */
export async function checkTarget(
  settings: Settings,
  access: GatewayAccess,
  choice: GatewayChoice,
  request: CheckRequest,
  listener: CanaryListener = {},
): Promise<CanaryResult> {
  if (request.awaitMs !== undefined) {
    return canaryCheck(settings, access, choice, request, listener);
  }
  const test = request.to === undefined ? undefined : testMessage(request, settings);
  const gateway = await openGateway(access, oneAtATime(settings, choice));
  try {
    // It sends again what a send would: as often as --retries, each wait within --timeout.
    return await checkGateway(gateway.client, gateway.label, test, settings);
  } finally {
    await gateway.close();
  }
}

/** The run a check opens the gateway for: its one request at a time needs one connection. */
function oneAtATime(settings: Settings, choice: GatewayChoice): GatewayRun {
  return { settings: { ...settings, concurrency: 1 }, choices: choice, io: { clock: systemClock } };
}

/**
 * How a check ends: its document, and the typed error (exit 3) when the gateway could not be used
 * or no delivery report came; else exit 0, or 1 when the test message was not delivered.
 */
export function checkEnding(result: CanaryResult): {
  document: CheckDocument;
  error?: SmsSendError;
  exitCode: ExitCode;
} {
  const document = { check: result };
  if (result.delivery !== undefined && result.delivery.status === undefined) {
    const error = new GatewayUnusableError(
      `check failed: ${result.reason ?? 'no delivery report'}`,
      'no-delivery-report',
      document,
    );
    return { document, error, exitCode: error.exitCode };
  }
  if (!result.ok && result.delivery === undefined) {
    const error = new GatewayUnusableError(
      `check failed: ${result.reason ?? 'unknown reason'}`,
      'check-failed',
      document,
    );
    return { document, error, exitCode: error.exitCode };
  }
  return { document, exitCode: result.ok ? ExitCode.ok : ExitCode.notAllAccepted };
}

/**
 * Where the gateway sends the test message's delivery report: `dlrPublicUrl`, or the receiver
 * itself when the gateway is on this machine (the simulator, a loopback endpoint).
 */
function publicBase(
  request: CheckRequest,
  choice: GatewayChoice,
  access: GatewayAccess,
  receiver: DlrReceiver,
): string {
  if (request.dlrPublicUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(request.dlrPublicUrl);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
      throw new UsageError(
        `--dlr-public-url "${request.dlrPublicUrl}": must be an absolute http(s) URL with no ? or #, ` +
          'e.g. https://canary.example.com',
      );
    }
    return request.dlrPublicUrl.replace(/\/+$/, '');
  }
  if (choice.simulate || (access.endpoint !== undefined && isLoopbackUrl(access.endpoint))) {
    return receiver.url;
  }
  throw new UsageError(
    `the gateway cannot reach a receiver on ${receiver.url}: pass --dlr-public-url with the address ` +
      `it can reach (a tunnel or a proxy to port ${receiver.port}, which --dlr-port fixes). Nothing was sent.`,
  );
}

/** Where the canary's test message has its delivery report sent, and how it hears of it. */
interface CanaryRoute {
  /** The DeliveryReportUrl the test message carries (a template, as the gateway fills it). */
  deliveryReportUrl: string;
  /** Proves the report is the gateway's, to receivers that believe only proven reports. */
  signer?: DlrSigner;
  reports: CanaryReports;
  /** Where the gateway sends the reports, and where they are heard of. */
  where: Pick<CanaryStart, 'reportsTo' | 'receiver' | 'keptIn'>;
  /** Why nothing could be heard, when the store did not answer. */
  trouble?: () => string | undefined;
  close(): Promise<void>;
}

async function canaryCheck(
  settings: Settings,
  access: GatewayAccess,
  choice: GatewayChoice,
  request: CheckRequest,
  listener: CanaryListener,
): Promise<CanaryResult> {
  const { runCanary } = await import('../dlr/canary.js');
  const messageId = testMessageId();
  const route = fleetReceives(settings, request)
    ? await fleetRoute(settings, messageId)
    : await ownRoute(request, choice, access);
  try {
    const test = testMessage(
      request,
      {
        ...settings,
        defaults: { ...settings.defaults, deliveryReportUrl: route.deliveryReportUrl },
      },
      messageId,
      route.signer,
    );
    const gateway = await openGateway(access, oneAtATime(settings, choice), {
      deliveryReports: {
        delayMs: SIMULATED_DLR_DELAY_MS,
        ...(request.dlrMix === undefined ? {} : { statusMix: request.dlrMix }),
      },
    });
    try {
      listener.start?.({ to: test.to, endpoint: gateway.label, ...route.where });
      const result = await runCanary({
        client: gateway.client,
        endpoint: gateway.label,
        test,
        deliveryReportUrl: route.deliveryReportUrl,
        reports: route.reports,
        awaitMs: request.awaitMs!,
        retry: settings,
        onAccepted: listener.accepted?.bind(listener),
        onInterim: listener.interim?.bind(listener),
      });
      const trouble = route.trouble?.();
      if (result.delivery && result.delivery.status === undefined && trouble !== undefined) {
        result.reason = `${result.reason ?? 'no delivery report'} (the state database did not answer: ${trouble})`;
      }
      return result;
    } finally {
      await gateway.close();
    }
  } finally {
    await route.close();
  }
}

/**
 * A fleet's receivers take the canary's report when campaigns are kept in a database and sends
 * have a DeliveryReportUrl of their own (the receivers' Service), unless the check is given a
 * receiver of its own (--dlr-public-url or --dlr-port).
 */
function fleetReceives(settings: Settings, request: CheckRequest): boolean {
  return (
    settings.stateUrl !== undefined &&
    settings.defaults.deliveryReportUrl !== undefined &&
    request.dlrPublicUrl === undefined &&
    request.dlrPort === undefined
  );
}

/** The report goes where a send's would, and is read from the store the receivers keep it in. */
async function fleetRoute(settings: Settings, messageId: string): Promise<CanaryRoute> {
  const state = openState(settings);
  try {
    const shelf = state.store.deliveries!;
    // The receivers believe a report proven with the store's secret; the first check may make it.
    const [key] = (await state.store.dlrKeys(true)).keys;
    const kept = keptCanary(shelf, messageId);
    const url = settings.defaults.deliveryReportUrl!;
    return {
      deliveryReportUrl: url,
      signer: { key: key!, campaign: CANARY },
      reports: kept.reports,
      where: { reportsTo: url, keptIn: state.store.where },
      trouble: kept.trouble,
      close: () => closeState(state),
    };
  } catch (error) {
    await closeState(state);
    throw error;
  }
}

/** A receiver of the check's own, on this machine, for as long as the check waits. */
async function ownRoute(
  request: CheckRequest,
  choice: GatewayChoice,
  access: GatewayAccess,
): Promise<CanaryRoute> {
  const { DlrReceiver, urlTemplate } = await import('../dlr/receiver.js');
  const port = request.dlrPort ?? 0;
  const receiver = await DlrReceiver.start({ port }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') {
      throw new UsageError(`--dlr-port ${port} is in use; pick another`);
    }
    throw error;
  });
  try {
    const base = publicBase(request, choice, access, receiver);
    return {
      deliveryReportUrl: urlTemplate(base),
      reports: (onReport) => {
        receiver.on('report', onReport);
        return () => receiver.off('report', onReport);
      },
      where: { reportsTo: base, receiver: receiver.url },
      close: async () => {
        await receiver.stop();
      },
    };
  } catch (error) {
    await receiver.stop();
    throw error;
  }
}

function testMessage(
  request: CheckRequest,
  settings: Settings,
  messageId = testMessageId(),
  dlrSigner?: DlrSigner,
): TestMessage {
  const text = request.text ?? `sms-send check ${new Date(systemClock.now()).toISOString()}`;
  // Its MessageId given as a record's would be, so a proof is made for it.
  const fields = { to: request.to!, text, MessageId: messageId };
  const built = buildMessage(
    { row: 1, file: '--to', line: 1, fields },
    planColumns(['to', 'text', 'MessageId'], {}, false),
    {
      settings: { defaults: settings.defaults, country: settings.country },
      campaignKey: 'check',
      now: new Date(systemClock.now()),
      ...(dlrSigner === undefined ? {} : { dlrSigner }),
    },
  );
  if (!built.ok) {
    const reasons = built.problems.map(
      (p) => `${p.field === 'to' ? '--to' : p.field}: ${p.reason}`,
    );
    throw new UsageError(`the test message cannot be sent: ${reasons.join('; ')}`);
  }
  return { to: built.to, messageId, json: JSON.stringify(built.message) };
}

/** A fresh id per check, so a gateway that remembers ids never sees one twice. */
function testMessageId(): string {
  return `check-${systemClock.now().toString(36)}`;
}
