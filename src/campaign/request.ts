// The one mapping from what a caller asks for (send's flags, the API's options) to a campaign request.
import { resolve as resolvePath } from 'node:path';
import type { Settings } from '../config/settings.js';
import type { Mapping } from '../message/columns.js';
import type { CampaignRequest } from './types.js';

/** How a campaign is read and sent: send's flags by their names, and the API's options alike. */
export interface CampaignChoices {
  simulate?: boolean;
  map?: Mapping;
  inputFormat?: string;
  delimiter?: string;
  limit?: number;
  dedupe?: boolean;
  skipInvalid?: boolean;
  report?: string;
  force?: boolean;
  resume?: boolean;
  retryUnknown?: boolean;
  /** false: outside the send window, end at once (exit 5) instead of waiting. */
  wait?: boolean;
  dryRun?: boolean;
}

/**
 * The core request for these inputs and choices. With `cwd`, relative inputs and the report are
 * found from there (and the default report beside the input found there).
 */
export function campaignRequest(
  inputs: readonly string[],
  choices: CampaignChoices,
  context: { settings: Settings; template?: string; stdinPath?: string; cwd?: string },
): CampaignRequest {
  const path = (input: string) => (context.cwd ? resolvePath(context.cwd, input) : input);
  return {
    files: inputs.map((input) => ({
      path: input === '-' ? context.stdinPath! : path(input),
      label: input,
    })),
    settings: context.settings,
    simulate: choices.simulate === true,
    mapping: choices.map ?? {},
    template: context.template,
    inputFormat: choices.inputFormat,
    delimiter: choices.delimiter,
    limit: choices.limit,
    dedupe: choices.dedupe,
    skipInvalid: choices.skipInvalid,
    report: choices.report === undefined ? undefined : path(choices.report),
    force: choices.force === true,
    resume: choices.resume === true,
    retryUnknown: choices.retryUnknown === true,
    noWait: choices.wait === false,
    dryRun: choices.dryRun === true,
    now: new Date(),
  };
}
