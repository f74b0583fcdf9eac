// Renders the campaigns of the state directory (list, one campaign) as strings.
import { campaignMessages, countsKnown } from '../../campaign/documents.js';
import type { ChalkInstance } from 'chalk';
import { basename } from 'node:path';
import type { ShownCampaign } from '../../campaign/types.js';
import type { CampaignEntry } from '../../journal/store.js';
import type { CampaignStatus } from '../../journal/manifest.js';
import { formatBytes, formatCount } from './format.js';
import { fitWidths, type Shrinkable } from './fit.js';
import { columnWidths, formatTable, type TableOptions } from './table.js';

function paintStatus(status: CampaignStatus, c: ChalkInstance): string {
  const paint = { finished: c.green, running: c.cyan, interrupted: c.yellow, stopped: c.red };
  return paint[status](status);
}

function when(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}

function others(counts: Record<string, number>): string {
  return Object.entries(counts)
    .filter(([outcome, n]) => outcome !== 'accepted' && n > 0)
    .map(([outcome, n]) => `${formatCount(n)} ${outcome}`)
    .join(', ');
}

const HEADER = ['ID', 'STARTED', 'STATUS', 'ACCEPTED', 'OTHER', 'INPUTS', 'REPORT'];
const GAP = 2;

/** On a narrow terminal the report keeps its file name's end; then the inputs, the other outcomes give way. */
const SHRINK: readonly Shrinkable[] = [
  { column: 6, min: 16, keep: 'end' },
  { column: 5, min: 8 },
  { column: 4, min: 8 },
];

/**
 * The campaigns as a table. `width` (a terminal's columns) fits it as gh does: in the full
 * words when they fit; else the times without "UTC" (the header has it) and the counts without
 * "accepted", and columns narrowed, cut with …; else REPORT and then INPUTS left out, as a last
 * line says. Without a width (not a terminal) every cell is whole.
 */
export function renderCampaignList(
  entries: readonly CampaignEntry[],
  stateDir: string,
  c: ChalkInstance,
  width?: number,
): string {
  if (entries.length === 0) return `no campaigns in ${stateDir}`;
  const full = [HEADER, ...entries.map((e) => listRow(e, false))];
  if (width === undefined) return listTable(full, entries, c).join('\n');
  const compact = [COMPACT_HEADER, ...entries.map((e) => listRow(e, true))];
  const tries = [full, compact, ...[6, 5].map((n) => compact.map((row) => row.slice(0, n)))];
  const rows = tries.find((t) => fitWidths(columnWidths(t), GAP, width, shrinkOf(t)).fits);
  const shown = rows ?? tries.at(-1)!;
  const lines = listTable(shown, entries, c, { width, shrink: shrinkOf(shown) });
  const left = HEADER.slice(shown[0]!.length);
  if (left.length === 0) return lines.join('\n');
  const note = `${left.join(', ')} left out (${width} columns): campaigns show ID and --json have them`;
  return [...lines, c.dim(note)].join('\n');
}

const COMPACT_HEADER = ['ID', 'STARTED (UTC)', ...HEADER.slice(2)];

const shrinkOf = (rows: readonly (readonly string[])[]) =>
  SHRINK.filter((s) => s.column < (rows[0]?.length ?? 0));

/** One campaign's cells; `compact` leaves out what the header says (UTC, accepted). */
function listRow(e: CampaignEntry, compact: boolean): string[] {
  const m = e.manifest;
  const [accepted, other] = countCells(e);
  return [
    m.id,
    compact ? when(m.startedAt) : `${when(m.startedAt)} UTC`,
    m.rehearsal ? `${e.status}, rehearsal` : e.status,
    compact ? accepted.replace(/ accepted$/, '') : accepted,
    other,
    m.inputs.map((i) => basename(i.path)).join(' '),
    m.reports.at(-1) ?? '',
  ];
}

function listTable(
  rows: readonly (readonly string[])[],
  entries: readonly CampaignEntry[],
  c: ChalkInstance,
  fit?: TableOptions['fit'],
): string[] {
  return formatTable(rows, {
    ...(fit ? { fit } : {}),
    // The header in bold; a row's status coloured inside its padded cell, so widths stay true.
    paint: (cell, column, row) =>
      row === 0
        ? c.bold(cell)
        : column === 2
          ? cell.replace(entries[row - 1]!.status, paintStatus(entries[row - 1]!.status, c))
          : cell,
  });
}

/**
 * The ACCEPTED and OTHER cells, accepted of the messages the run's summary counted them against.
 * A campaign a run is sending, or whose run was killed (or stopped
 * because its state could not be written), has the counts its manifest started with: the list
 * reads manifests only, so it stays quick, and names where the counts are instead of showing
 * numbers `campaigns show` would contradict.
 */
function countCells(e: CampaignEntry): [string, string] {
  const records = formatCount(e.manifest.records);
  if (!countsKnown(e)) {
    const why = e.status === 'running' ? 'sending now' : 'not written at its end';
    return [`? / ${records} accepted`, `${why}: campaigns show ${e.manifest.id} counts it`];
  }
  const messages = formatCount(campaignMessages(e));
  return [`${formatCount(e.counts.accepted)} / ${messages} accepted`, others(e.counts)];
}

const campaignCount = (n: number) => `${n} finished campaign${n === 1 ? '' : 's'}`;

/** What `campaigns prune` says it removed, or with --dry-run, would remove. */
export function renderPruned(
  where: string,
  removed: readonly string[],
  c: ChalkInstance,
  dryRun = false,
): string {
  if (removed.length === 0) return `nothing to prune in ${where}`;
  const did = dryRun ? 'would remove' : 'removed';
  return (
    `${did} the state of ${campaignCount(removed.length)}: ${removed.join(', ')}\n` +
    c.dim(
      dryRun
        ? 'Nothing was removed (--dry-run). Their reports would be kept.'
        : 'Their reports are kept; a re-run of their content is refused only while such a report exists.',
    )
  );
}

/** The question `campaigns prune` asks on a terminal: the campaigns, one a line, then the ask. */
export function renderPruneQuestion(ids: readonly string[]): string {
  return [
    `The state of ${campaignCount(ids.length)} will be removed (their reports are kept):`,
    ...ids.map((id) => `  ${id}`),
    'Remove it?',
  ].join('\n');
}

export function renderCampaign(entry: ShownCampaign, c: ChalkInstance): string {
  const m = entry.manifest;
  const { journals, bytes } = entry.setAside;
  const lines = [
    `${c.bold('campaign')}  ${m.id}${m.named ? c.dim(' (named with --campaign)') : ''}`,
    `${c.bold('status')}    ${paintStatus(entry.status, c)}${m.reason ? ` (${m.reason})` : ''}${m.rehearsal ? c.dim(', a rehearsal: sent to a simulator only') : ''}`,
    `${c.bold('started')}   ${m.startedAt}${m.runs > 1 ? c.dim(` (run ${m.runs}; first ${m.createdAt})`) : ''}`,
    `${c.bold('finished')}  ${m.finishedAt ?? c.dim('-')}`,
    `${c.bold('records')}   ${formatCount(m.records)}: ${accepted(entry)}${others(entry.counts) ? `, ${others(entry.counts)}` : ''}${c.dim(countedFrom(entry))}`,
    ...(entry.deliveries === undefined ? [] : [deliveriesLine(entry.deliveries, c)]),
    `${c.bold('target')}    ${m.target}`,
    ...(m.followUp
      ? [
          `${c.bold('follow-up')} of ${m.followUp.of}: re-sends its ` +
            `${['failed', 'rejected', ...m.followUp.include].join(', ')} records`,
        ]
      : []),
    ...(entry.followUps.length > 0
      ? [
          c.bold('follow-ups'),
          ...entry.followUps.map(
            (f) =>
              `  ${f.id}  ${paintStatus(f.status, c)}  ${formatCount(f.counts.accepted)} accepted` +
              `${others(f.counts) ? `, ${others(f.counts)}` : ''}` +
              (f.include.length > 0 ? c.dim(` (--include ${f.include.join(',')})`) : ''),
          ),
        ]
      : []),
    c.bold('inputs'),
    ...m.inputs.map(
      (i) =>
        `  ${i.path}  ${c.dim(`${formatCount(i.bytes)} bytes, sha256 ${i.sha256.slice(0, 16)}`)}`,
    ),
    c.bold('reports'),
    ...m.reports.map((r) => `  ${r}`),
    `${c.bold('state')}     ${entry.where}`,
    ...(entry.host ? [`${c.bold('host')}      ${entry.host}${hostNote(entry, c)}`] : []),
    ...(journals > 0
      ? [
          `${c.bold('set aside')} ${journals === 1 ? 'a journal' : `${formatCount(journals)} journals`} of runs before a --force run ` +
            c.dim(`(${formatBytes(bytes)}; removed with the campaign by campaigns prune)`),
        ]
      : []),
  ];
  return lines.join('\n');
}

/**
 * `2,063 of 4,990 messages accepted`, as the run's summary says it; while the counts are a
 * journal's (a run sending, or killed), what it settled so far: `2,063 accepted`.
 */
function accepted(entry: ShownCampaign): string {
  const n = formatCount(entry.counts.accepted);
  if (entry.countedFromJournal) return `${n} accepted`;
  const messages = campaignMessages(entry);
  return `${n} of ${formatCount(messages)} ${messages === 1 ? 'message' : 'messages'} accepted`;
}

/** The delivery reports the campaign's store keeps, every receiver's, by status. */
function deliveriesLine(byStatus: Record<string, number>, c: ChalkInstance): string {
  const counts = Object.entries(byStatus).map(([status, n]) => `${formatCount(n)} ${status}`);
  return (
    `${c.bold('deliveries')} ${counts.length === 0 ? 'no delivery report yet' : counts.join(', ')}` +
    c.dim(' (delivery reports kept in the state database, from every receiver)')
  );
}

/** Whether the host holds the campaign now, or its run there is gone, or it last held it. */
function hostNote(entry: CampaignEntry, c: ChalkInstance): string {
  if (entry.goneUntil) {
    return c.yellow(
      ` (its run there is gone, killed: its lease keeps other runs out until ${entry.goneUntil})`,
    );
  }
  return entry.status === 'running' ? ' (holds it now)' : c.dim(' (last held it)');
}

/** Where a running or killed campaign's counts come from, and the rows it left in flight. */
function countedFrom(entry: ShownCampaign): string {
  if (!entry.countedFromJournal) return '';
  const { sentWithoutAnswer, notKnownToHaveLeft } = entry.inFlight;
  const inFlight = [
    sentWithoutAnswer > 0 ? `, ${formatCount(sentWithoutAnswer)} sent without an answer` : '',
    notKnownToHaveLeft > 0
      ? `, ${formatCount(notKnownToHaveLeft)} recorded, not known to have left`
      : '',
  ].join('');
  if (entry.fromReport === 0) return ` (settled so far, from its journal${inFlight})`;
  return (
    ` (settled so far, from its journal and, for ${formatCount(entry.fromReport)} of them, ` +
    `from its report, where --resume takes them from${inFlight})`
  );
}
