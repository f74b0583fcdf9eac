// A campaign's one path to the gateway, the steps it takes in the order it takes them: the command
// line, a retry, the API and the pipeline tests all come here (docs/architecture.md#flow). A dry
// run takes the same steps up to the plan.
import { recordTimeline } from '../../report/html/recorder.js';
import { StateStoreError, stateStoreFailure } from '../../shared/errors.js';
import type { CampaignRun } from '../run.js';
import { gatewayAccess, openGateway } from '../target.js';
import type { CampaignResult, PlannedCampaign } from '../types.js';
import { answeredResult } from './answered.js';
import { claim, look } from './claim.js';
import { finish, keepRunRecord } from './finish.js';
import { identify } from './identify.js';
import { journaledSend } from './journaled-send.js';
import { markRunning, markSupersedes, setOwnersReportAside } from './running.js';
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

/** Sends the run's campaign; the run's store is closed once it is done. */
export async function sendCampaign(
  run: CampaignRun,
  caller: RunCaller = {},
): Promise<SentCampaign> {
  try {
    return await sendSteps(run, caller);
  } catch (error) {
    throw asTyped(error);
  } finally {
    await run.store.close();
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
  // Where to send is known before the campaign's state is looked at.
  const access = gatewayAccess(run.settings, run.choices);
  const identified = await identify(run);
  const hold = await claim(run, identified);
  try {
    const campaign = await validate(run, identified, hold);
    caller.planned?.(campaign);
    refuse(run, campaign);
    if (campaign.relatedRefusal) throw campaign.relatedRefusal;
    await caller.confirm?.(campaign);
    if (campaign.answer) {
      const result = answeredResult(run, campaign.answer, campaign.reportPath);
      return { campaign, result, simulated: run.choices.simulate === true };
    }
    await waitForWindow(run);
    const gateway = await openGateway(access, run);
    const timeline = recordTimeline(run.io.events, run.settings, run.commandLine ?? '');
    try {
      await setOwnersReportAside(run, campaign, hold);
      await markRunning(run, campaign, hold.claim!, gateway.sentTo);
      await markSupersedes(campaign, hold);
      const sent = await journaledSend(run, campaign, hold.claim!, gateway.client);
      const result = await finish(run, campaign, hold.claim!, sent);
      return { campaign, result, simulated: gateway.simulated };
    } finally {
      await gateway.close({ abort: run.io.abort?.aborted === true });
      await keepRunRecord(run, campaign, timeline, gateway.sentTo);
    }
  } finally {
    await hold.close();
  }
}

/** The dry run: the campaign identified, its state looked at, validated and planned; nothing kept. */
export async function planCampaign(run: CampaignRun): Promise<PlannedCampaign> {
  try {
    const identified = await identify(run);
    const hold = await look(run, identified);
    try {
      return await validate(run, identified, hold);
    } finally {
      await hold.close();
    }
  } catch (error) {
    throw asTyped(error);
  } finally {
    await run.store.close();
  }
}
