// What a command's help shows besides its flags: the flag groups' headings, and sections after
// the flags (examples, exit codes, environment) formatted as commander formats its lists.
import type { Command, Help } from 'commander';
import { PROFILE_ENV } from '../config/env.js';
import { SETTING_KEYS, SETTINGS, type SettingGroup, type SettingSpec } from '../config/table.js';
import { EXIT_CODE_MEANING, type ExitCode } from '../shared/errors.js';

/** The help's flag groups, in the order `send --help` lists them. */
export const GROUP = {
  input: 'Input:',
  message: 'Message:',
  cost: 'Cost:',
  sending: 'Sending:',
  report: 'Report and state:',
  output: 'Output:',
  gateway: 'Gateway and credentials:',
} as const;

/** Sections a command's help adds after its flags (examples, exit codes, environment). */
export type HelpSection =
  { title: string; items: [string, string][] } | { title: string; lines: string[] };
const helpSections = new WeakMap<Command, HelpSection[]>();

/** The sections `command`'s help shows after its flags. */
export function setHelp(command: Command, sections: HelpSection[]): void {
  helpSections.set(command, sections);
}

export function examples(items: [comment: string, line: string][]): HelpSection {
  return {
    title: 'Examples:',
    lines: items.flatMap(([comment, line]) => [`# ${comment}`, `$ ${line}`]),
  };
}

/** The exit codes of a command: by default every one, from src/shared/errors.ts. */
export function exitCodes(
  meanings: Partial<Record<ExitCode, string>> = EXIT_CODE_MEANING,
): HelpSection {
  return {
    title: 'Exit codes:',
    items: Object.entries(meanings).map(([code, meaning]) => [code, meaning]),
  };
}

/** The variables that set something a command uses: the settings table's, and the profile's. */
export function environment(groups?: readonly SettingGroup[]): HelpSection {
  const items: [string, string][] = [];
  for (const key of SETTING_KEYS) {
    const spec: SettingSpec = SETTINGS[key];
    if (spec.env === undefined || (groups && !groups.includes(spec.group))) continue;
    items.push([spec.env, spec.help]);
  }
  items.push([PROFILE_ENV, 'profile from the config file (as --profile)']);
  if (!groups || groups.includes('gateway')) {
    // Read as curl and npm read them, when no proxy setting is given.
    items.push(['HTTPS_PROXY', 'proxy for an https gateway (https_proxy too; else HTTP_PROXY)']);
    items.push(['HTTP_PROXY', 'proxy for an http gateway (http_proxy too)']);
    items.push(['NO_PROXY', 'hosts reached directly, not through a proxy (no_proxy too)']);
    items.push(['NODE_EXTRA_CA_CERTS', 'PEM file of CA certificates Node trusts besides its own']);
  }
  items.push(['NO_COLOR', 'no colours in output (as --no-color)']);
  return { title: 'Environment:', items };
}

export function learnMore(): HelpSection {
  return {
    title: 'Learn more:',
    lines: [
      'sms-send <command> --help shows what a command takes. The README explains',
      'input, the report, campaigns and state, cron, CI and the --json documents.',
    ],
  };
}

/** The sections a command adds after commander's own help, formatted as commander formats lists. */
export function formatSections(command: Command, helper: Help): string {
  const sections = helpSections.get(command) ?? [];
  const out: string[] = [];
  for (const section of sections) {
    if ('lines' in section) {
      out.push(helper.styleTitle(section.title), ...section.lines.map((line) => `  ${line}`), '');
      continue;
    }
    const width = Math.max(...section.items.map(([term]) => helper.displayWidth(term)));
    const items = section.items.map(([term, text]) => helper.formatItem(term, width, text, helper));
    out.push(...helper.formatItemList(section.title, items, helper));
  }
  return out.length === 0 ? '' : `\n${out.join('\n')}`;
}
