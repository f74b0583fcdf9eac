// A campaign's one path to the gateway, the steps it takes in the order it takes them: the command
// line, a retry, the API and the pipeline tests all come here (docs/architecture.md#flow). A dry
// run takes the same steps up to the plan.
import { closeState } from '../../journal/open-store.js';
import { recordTimeline } from '../../report/html/recorder.js';
import { StateStoreError, stateStoreFailure } from '../../shared/errors.js';
import type { CampaignRun } from '../run.js';
import { gatewayAccess, openGateway, type GatewayAccess } from '../target.js';
import type { CampaignResult, PlannedCampaign } from '../types.js';
import { answeredResult, answerFinished } from './answered.js';
import { claim, look } from './claim.js';
import { earlierDeliveries, restoreEarlierDeliveries } from './deliveries.js';
import { finish, keepRunRecord } from './finish.js';
import type { RunHold } from './hold.js';
import { identify } from './identify.js';
import { journaledSend } from './journaled-send.js';
import type { Validated } from './planned.js';
import { markRunning, markSupersedes, setOwnersReportAside } from './running.js';
import { RunKeeper } from './run-record.js';
import { readSettled, type Settled } from './settled.js';
import { refuse, validate } from './validate.js';
import { waitForWindow } from './window.js';

export { expandReportPath } from './identify.js';

/** What the caller does once the campaign is planned, before anything is sent: show it, ask. */
export interface RunCaller {
  /** The campaign is validated and planned: its warnings can be shown, refused or not. */
  planned?(campaign: PlannedCampaign): void;
  /** It may be sent: the caller's confirmation. Throws to end the run there; nothing is sent. */
  confirm?(campaign: PlannedCampaign): void | Promise<void>;
}

/** A campaign sent, however the run ended (a stop is in its result). */
export interface SentCampaign {
  campaign: PlannedCampaign;
  result: CampaignResult;
  /** The built-in simulator answered: nothing reached a phone. */
  simulated: boolean;
}

/** Sends the run's campaign; the run's store and cache are closed once it is done. */
export async function sendCampaign(
  run: CampaignRun,
  caller: RunCaller = {},
): Promise<SentCampaign> {
  try {
    return await sendSteps(run, caller);
  } catch (error) {
    throw asTyped(error);
  } finally {
    await closeState(run);
  }
}

/** The dry run: the campaign identified, its state looked at, validated and planned; nothing kept. */
export async function planOnly(run: CampaignRun): Promise<PlannedCampaign> {
  try {
    const identified = await identify(run);
    const hold = await look(run, identified);
    return await validate(run, identified, hold, await readSettled(run, identified, hold));
  } catch (error) {
    throw asTyped(error);
  } finally {
    await closeState(run);
  }
}

/**
 * A state database's failure a step did not word for its moment (each step before the first
 * batch says nothing was sent): in the database's words, with its exit code.
 */
function asTyped(error: unknown): unknown {
  return error instanceof StateStoreError ? stateStoreFailure(error) : error;
}

async function sendSteps(run: CampaignRun, caller: RunCaller): Promise<SentCampaign> {
  // Where to send is known before the campaign's state is looked at (a run made to send has it).
  const access = run.access ?? gatewayAccess(run.settings, run.choices);
  const identified = await identify(run);
  const hold = await claim(run, identified);
  try {
    const answer = await answerFinished(run, identified, hold);
    if (answer) {
      await approved(run, caller, answer);
      const result = answeredResult(run, answer.answer, answer.reportPath);
      return { campaign: answer, result, simulated: run.choices.simulate === true };
    }
    const settled = await readSettled(run, identified, hold);
    const campaign = await validate(run, identified, hold, settled);
    await approved(run, caller, campaign);
    return await sent(run, { hold, campaign, settled, access });
  } finally {
    await hold.close();
  }
}

/** The planned campaign shown to the caller, refused (exit 2) or confirmed by it. */
async function approved(run: CampaignRun, caller: RunCaller, campaign: Validated): Promise<void> {
  caller.planned?.(campaign);
  refuse(run, campaign);
  if (campaign.relatedRefusal) throw campaign.relatedRefusal;
  await caller.confirm?.(campaign);
}

/** A campaign the caller confirmed: what sending it takes. */
interface Approved {
  hold: RunHold;
  campaign: Validated;
  settled: Settled;
  access: GatewayAccess;
}

/** The campaign sent, once its window is open, and its run's record kept however it ended. */
async function sent(
  run: CampaignRun,
  { hold, campaign, settled, access }: Approved,
): Promise<SentCampaign> {
  await waitForWindow(run);
  const gateway = await openGateway(access, run);
  const timeline = recordTimeline(run.io.events, run.settings, run.commandLine ?? '');
  let keeper: RunKeeper | undefined;
  try {
    await setOwnersReportAside(run, campaign, hold);
    await markRunning(run, campaign, hold, gateway.sentTo);
    keeper = new RunKeeper(run, hold, timeline, gateway.sentTo);
    await markSupersedes(campaign, hold);
    const deliveries = await earlierDeliveries(hold, settled, { store: run.store, campaign });
    const sending = await journaledSend(run, campaign, hold, settled, deliveries, gateway.client);
    await restoreEarlierDeliveries(campaign, deliveries);
    const result = await finish(run, campaign, hold, sending);
    // sms-send's simulator behind an endpoint (`sms-send simulate`) makes a rehearsal too.
    return { campaign, result, simulated: gateway.simulated || sending.result.rehearsal === true };
  } finally {
    await gateway.close({ abort: run.io.abort?.aborted === true });
    await keepRunRecord(run, campaign, keeper);
  }
}
