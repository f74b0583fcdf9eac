// Step one of a campaign: its inputs hashed (each remembered from an earlier run when its file is
// the one hashed then), its lists read, its identity (which names its state and makes its
// MessageIds; a follow-up brings its own), and the report it writes.
import { basename, dirname, extname, join } from 'node:path';
import type { InputFile } from '../../input/open.js';
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
import { UsageError } from '../../shared/errors.js';
import { exists } from '../../shared/files.js';
import { checkInputsUnchanged } from '../follow-up/index.js';
import type { CampaignRun } from '../run.js';
import { identitySettings, type InputSettings } from './implied.js';

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
}

/**
 * Hashes the inputs and reads the suppression lists (each refused with exit 2 before the
 * campaign's state is looked at), then names the campaign and its report.
 */
export async function identify(run: CampaignRun): Promise<Identified> {
  const { settings, followUp } = run;
  const template = run.template === undefined ? undefined : compileTemplate(run.template);
  // A send remembers its inputs' digests, so its resume need not read them again.
  const digests = await run.store.inputDigests();
  const hashes = await hashInputs(run.inputs, digests);
  if (!run.choices.dryRun) await digests.save();
  const suppression = await loadSuppression(settings.suppress, settings.country);
  if (followUp) checkInputsUnchanged(run.inputs, hashes, followUp);
  const { identity, shape } = await identityOf(run, hashes);
  const reportPath = await reportPathFor(run, identity);
  return { identity, shape, hashes, suppression, template, reportPath };
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
      const e = error as NodeJS.ErrnoException;
      const reason =
        e.code === 'ENOENT'
          ? 'the input file does not exist'
          : e.code === 'EISDIR'
            ? 'is a directory, not a file'
            : `cannot read (${e.code ?? e.message})`;
      throw new UsageError(`${file.label}: ${reason}`, 'input', undefined, [
        { file: file.label, reason },
      ]);
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
  return reportPath;
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
