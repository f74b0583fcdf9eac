// Step one of a campaign: its inputs hashed (each remembered from an earlier run when its file is
// the one hashed then), its lists read, its identity (which names its state and makes its
// MessageIds; a follow-up brings its own), and the report it writes.
import { stat } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { InputFile } from '../../input/open.js';
import { unreadableInput } from '../../input/present.js';
import {
  campaignIdentity,
  contentHash,
  expandCampaignName,
  expandPlaceholders,
  type CampaignIdentity,
  type CampaignShape,
} from '../../journal/identity.js';
import type { InputDigests } from '../../journal/input-digests.js';
import { loadSuppression, type Suppression } from '../../message/suppress.js';
import { compileTemplate, type Template } from '../../message/template.js';
import { reportFormat } from '../../report/format.js';
import { unsentStateError, UsageError } from '../../shared/errors.js';
import { exists } from '../../shared/files.js';
import { checkInputsUnchanged } from '../follow-up/index.js';
import type { CampaignRun } from '../run.js';
import { identitySettings, type InputSettings } from './implied.js';
import { findRelatives, type Relative } from './relatives.js';
import { Recorded, resolveSkipped, type Skipped } from './skip-sent.js';

/** Who the campaign is, what it is made from, and where its report goes. */
export interface Identified {
  identity: CampaignIdentity;
  /** How its messages are made from its inputs: what the manifest keeps, and a follow-up reuses. */
  shape: CampaignShape;
  hashes: { sha256: string; bytes: number }[];
  suppression: Suppression | undefined;
  /** The message template, compiled (and refused, exit 2) before anything else is read. */
  template: Template | undefined;
  reportPath: string;
  /** The campaigns whose recipients it leaves out (--skip-sent-by). */
  skipping: Skipped[];
  /** Recorded campaigns of other content that read its inputs or wrote its report. */
  relatives: Relative[];
  /** The campaigns of the stores the run sees, and whom each may have sent to, read once. */
  recorded: Recorded;
}

/**
 * Hashes the inputs and reads the suppression lists (each refused with exit 2 before the
 * campaign's state is looked at), then names the campaign and its report.
 */
export async function identify(run: CampaignRun): Promise<Identified> {
  try {
    return await identified(run);
  } catch (error) {
    // Nothing is sent while a campaign is identified: a state that refuses here refuses the run.
    throw unsentStateError(error) ?? error;
  }
}

async function identified(run: CampaignRun): Promise<Identified> {
  const { settings, followUp } = run;
  const template = run.template === undefined ? undefined : compileTemplate(run.template);
  // A send remembers its inputs' digests, so its resume need not read them again.
  const digests = await run.cache.inputDigests();
  const hashes = await hashInputs(run.inputs, digests);
  if (!run.choices.dryRun) await digests.save();
  const suppression = await loadSuppression(settings.suppress, settings.country);
  if (followUp) checkInputsUnchanged(run.inputs, hashes, followUp);
  const recorded = new Recorded(run);
  const skipping = await resolveSkipped(run, recorded);
  const skipIds = skipping.map((s) => s.entry.manifest.id).sort();
  const { identity, shape } = await identityOf(run, hashes, skipIds);
  if (skipIds.includes(identity.id)) {
    throw new UsageError(
      `--skip-sent-by ${identity.id} names this very campaign: --resume finishes it, sending ` +
        'nothing it sent. Nothing was sent.',
      'usage',
    );
  }
  const reportPath = await reportPathFor(run, identity);
  // A follow-up re-sends its original's records on purpose: its relatives are its own business.
  // A state that cannot be used is the claim's to refuse (or the dry run's to say).
  const relatives =
    followUp || (await run.store.problem())
      ? []
      : await findRelatives(run, identity, reportPath, skipping, recorded);
  return {
    identity,
    shape,
    hashes,
    suppression,
    template,
    reportPath,
    skipping,
    relatives,
    recorded,
  };
}

/**
 * The inputs' digests and sizes, in order, each remembered from an earlier run when its file is
 * the one hashed then (see InputDigests); a missing or unreadable input is exit 2.
 */
async function hashInputs(
  files: readonly InputFile[],
  digests: InputDigests,
): Promise<{ sha256: string; bytes: number }[]> {
  const hashes = [];
  for (const file of files) {
    try {
      hashes.push(await digests.digest(file.path));
    } catch (error) {
      throw unreadableInput(file.label, error as NodeJS.ErrnoException);
    }
  }
  return hashes;
}

/**
 * Who the campaign is, and how it makes its messages (the manifest keeps the settings as given:
 * a follow-up rebuilds the messages with them).
 */
async function identityOf(
  run: CampaignRun,
  hashes: readonly { sha256: string; bytes: number }[],
  skipSentBy: readonly string[],
): Promise<{ identity: CampaignIdentity; shape: CampaignShape }> {
  const { settings, followUp, choices } = run;
  const given = {
    inputFormat: choices.inputFormat,
    delimiter: choices.delimiter,
    mapping: choices.map ?? {},
  };
  const shapeOf = (input: InputSettings): CampaignShape => ({
    target: choices.simulate ? 'simulator' : 'gateway',
    mapping: input.mapping,
    template: run.template,
    inputFormat: input.inputFormat,
    delimiter: input.delimiter,
    country: settings.country,
    defaults: settings.defaults,
    // Only when on, so the IDs of campaigns from before the flag existed stay as they were.
    gsmNormalize: settings.gsmNormalize || undefined,
    ...(skipSentBy.length > 0 ? { skipSentBy: [...skipSentBy] } : {}),
  });
  const name =
    settings.campaign === undefined
      ? undefined
      : expandCampaignName(settings.campaign, run.inputs[0]!.label, run.at);
  const shape = followUp?.shape ?? shapeOf(given);
  const identity =
    followUp?.identity ??
    campaignIdentity(
      contentHash(
        hashes,
        shapeOf(await identitySettings(run.inputs, given, run.template !== undefined)),
      ),
      name,
    );
  return { identity, shape };
}

/** The report path, refused (exit 2) when its format is unknown or its folder does not exist. */
async function reportPathFor(run: CampaignRun, identity: CampaignIdentity): Promise<string> {
  const reportPath = expandReportPath(
    run.choices.report,
    run.inputs[0]!.label,
    run.at,
    identity.id,
  );
  reportFormat(reportPath);
  if (!(await exists(dirname(reportPath) || '.'))) {
    throw new UsageError(
      `cannot write the report ${reportPath}: the folder ${dirname(reportPath)} does not exist`,
    );
  }
  await refuseInputAsReport(run, reportPath);
  return reportPath;
}

/**
 * A report is never an input: a report path that is one of the inputs (the same file, however
 * named: links resolved, device and inode compared) is refused, and no --force is offered.
 */
async function refuseInputAsReport(run: CampaignRun, reportPath: string): Promise<void> {
  const report = await stat(reportPath).catch(() => undefined);
  if (!report) return;
  for (const input of run.inputs) {
    if (input.label === '-') continue;
    const file = await stat(input.path).catch(() => undefined);
    if (file?.dev === report.dev && file.ino === report.ino) {
      throw new UsageError(
        `the report ${reportPath} is the input ${input.label} (the same file): a report never ` +
          'replaces an input. --report names another file. Nothing was sent.',
      );
    }
  }
}

/**
 * The report path: `--report` with {date}, {time} and {name} filled (so a cron line gets one
 * report per night), or `<input basename>.report.csv` beside the first input; for standard input,
 * `stdin-<campaign ID>.report.csv`, so two different piped campaigns do not share a report.
 */
export function expandReportPath(
  template: string | undefined,
  input: string,
  now: Date,
  campaignId: string,
): string {
  if (template !== undefined) return expandPlaceholders(template, input, now);
  if (input === '-') return `stdin-${campaignId.slice(0, 8)}.report.csv`;
  return join(dirname(input), `${basename(input, extname(input))}.report.csv`);
}
