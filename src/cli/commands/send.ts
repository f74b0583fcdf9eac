// `sms-send send`: wiring only. Flags in, the campaign's run built once and sent on its one path,
// its events to the terminal, its result to a renderer.
import type { Settings } from '../../config/settings.js';
import { ExitCode, InterruptedError, UsageError } from '../../shared/errors.js';
import { checkInputsPresent } from '../../input/present.js';
import { stdinSpool } from '../../input/stdin.js';
import { planDocument } from '../../campaign/documents.js';
import { refusedPlan } from '../../campaign/ending.js';
import { refusalError } from '../../campaign/refusal.js';
import {
  campaignRun,
  inputFiles,
  loadTemplate,
  type CampaignChoices,
  type CampaignRun,
} from '../../campaign/run.js';
import { planOnly, sendCampaign } from '../../campaign/steps/index.js';
import type { PlannedCampaign } from '../../campaign/types.js';
import { redactor } from '../../gateway/redact.js';
import { windowState } from '../../shared/window.js';
import { settingsFor, type GatewayFlags } from '../gateway-settings.js';
import { programOf, shownArgs, type Invocation } from '../invocation.js';
import { colorFor } from '../ui/color.js';
import { confirmOnTerminal } from '../ui/confirm.js';
import { endRun } from '../ui/ending.js';
import { shellWord } from '../../shared/shell.js';
import { formatCount, plural } from '../ui/format.js';
import { renderPlan } from '../ui/plan.js';
import { RunView, type ViewFlags } from '../ui/run-view.js';
import { renderWindowPlan } from '../ui/window.js';

/**
 * A run this large asks before sending when standard input is a terminal, wherever its output
 * goes (--yes skips it; a run whose input is not a terminal has no one to ask, and never asks).
 */
const CONFIRM_ABOVE = 1000;

/** send's flags: the campaign's choices (declared once, in campaign/run.ts), and how to show it. */
export interface SendFlags extends GatewayFlags, CampaignChoices, ViewFlags {
  yes?: boolean;
  text?: string;
  textFile?: string;
}

export async function runSend(
  inputs: string[],
  flags: SendFlags,
  invocation: Invocation,
): Promise<ExitCode> {
  const settings = await settingsFor(flags, inputs);
  const template = await loadTemplate(flags.text, flags.textFile);
  // Standard input is read more than once (identity, validation, send): it is spooled first.
  if (inputs.includes('-') && process.stdin.isTTY) {
    // A terminal would wait for records typed in, with no prompt: say so instead.
    throw new UsageError(
      '"-" reads the campaign from standard input, and standard input is this terminal: pipe the ' +
        'records in (sms-send - < campaign.csv) or name the file. Nothing was sent.',
    );
  }
  // A file named wrong is said before a missing endpoint: nothing could be sent from it anyway.
  await checkInputsPresent(inputFiles(inputs.filter((input) => input !== '-')));
  const stdin = inputs.includes('-') ? await stdinSpool() : undefined;
  const view = new RunView(flags);
  try {
    // Made before standard input is read: where to send is known before anything is read.
    const run = campaignRun({
      inputs: inputFiles(inputs, { stdinPath: stdin?.path }),
      settings,
      choices: flags,
      template,
      program: programOf(invocation),
      commandLine: typedCommand(settings, invocation),
      io: view.io,
    });
    await stdin?.fill(process.stdin);
    return await sendFromCommand(run, { flags, invocation, view });
  } finally {
    view.dispose();
    await stdin?.remove();
  }
}

/** What the command line adds to a run: its flags, how it was run, its terminal view. */
export interface CommandContext {
  flags: SendFlags;
  /** How the user ran the program: the command that finishes a stopped run is written so. */
  invocation: Invocation;
  view: RunView;
  /** Beside `plan` or `summary` in the --json documents (retry's `followUp`). */
  extra?: Record<string, unknown>;
}

/**
 * The dry run's plan, or the send on the campaign's one path with the plan shown and confirmed,
 * and its ending: shared by send and retry.
 */
export async function sendFromCommand(
  run: CampaignRun,
  context: CommandContext,
): Promise<ExitCode> {
  const { flags, view } = context;
  if (flags.dryRun) return printDryRun(run, await planOnly(run), context);
  const label = run.access?.label ?? '';
  const sent = await sendCampaign(run, {
    planned: (campaign) => view.planned(campaign),
    confirm: async (campaign) => {
      await confirmSend(campaign, flags, label);
      view.sending(campaign, label, run.settings.timeoutMs);
    },
  });
  return endRun(sent.result, {
    simulated: sent.simulated,
    campaign: sent.campaign.identity.id,
    json: flags.json === true,
    quiet: flags.quiet === true,
    extra: context.extra,
    invocation: context.invocation,
  });
}

/**
 * The command line as the user ran it, for the page (send's and retry's): credentials in it
 * masked.
 */
export function typedCommand(settings: Settings, invocation: Invocation): string {
  const words = ['sms-send', ...shownArgs(invocation.args)].map(shellWord);
  const line = words.join(' ');
  return settings.username !== undefined && settings.password !== undefined
    ? redactor(settings.username, settings.password)(line)
    : line;
}

/** The dry run's plan (or its refusal, with the plan in the --json document). */
function printDryRun(
  run: CampaignRun,
  campaign: PlannedCampaign,
  { flags, extra, view }: CommandContext,
): ExitCode {
  view.planned(campaign);
  const out = colorFor('stdout');
  const { plan, identity } = campaign;
  // When the run would send: the window, and whether it is open now or when it opens.
  const window = run.settings.sendWindow;
  const now = run.io.clock.now();
  const document = planDocument(campaign, window, extra, now);
  const state = window ? windowState(window, now) : undefined;
  const windowLine = window && state ? `\n${renderWindowPlan(window, state, now)}` : '';
  const left = campaign.resuming ? campaign.toSend : undefined;
  // A dry run agrees with a real run: refused by the input, or by the campaign's state.
  const problem =
    refusalError(
      campaign,
      run.inputs.map((input) => input.label),
    ) ?? campaign.stateRefusal;
  if (problem) {
    // A file whose records could not be read (its columns not found) leaves a plan of nothing:
    // the error alone says what to fix. Invalid records leave one worth seeing.
    if (!flags.json && plan.fileProblems.length === 0) {
      process.stdout.write(`${renderPlan(plan, out, left)}\n`);
    }
    // One document on stdout, even when the plan shows the run would be refused.
    throw refusedPlan(problem, document);
  }
  // A dry run needs no gateway (it checks the input and the campaign's state), but it does not
  // let a plan pass for a run that would be refused for want of one without saying so.
  const noGateway =
    !flags.simulate && !run.settings.endpoint
      ? `\n${out.yellow('no gateway endpoint is set: the real run needs --endpoint URL (or --simulate)')}`
      : '';
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(document)}\n`
      : `${renderPlan(plan, out, left)}${windowLine}${noGateway}\n${out.dim(`campaign ${identity.id}`)}\n`,
  );
  return ExitCode.ok;
}

/** A large send from a terminal asks first, unless --yes. */
async function confirmSend(campaign: PlannedCampaign, flags: SendFlags, label: string) {
  const { plan } = campaign;
  if (campaign.toSend > CONFIRM_ABOVE && !flags.yes && process.stdin.isTTY) {
    const left = campaign.resuming ? ' left in this campaign' : '';
    // Said before the yes, so a list that matched nobody (or everybody) is noticed in time.
    const suppressed = plan.suppressed > 0 ? ` (${formatCount(plan.suppressed)} suppressed)` : '';
    const answer = await confirmOnTerminal(
      `Send ${plural(campaign.toSend, 'message')}${left} to ${label}${suppressed}?`,
    );
    if (answer === 'interrupted') {
      throw new InterruptedError('interrupted at the confirmation: nothing was sent');
    }
    if (answer === 'no') throw new UsageError('not confirmed: nothing was sent', 'not-confirmed');
  }
}
