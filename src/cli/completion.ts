// Shell completion scripts for bash, zsh and fish, generated from the program's commands and flags.
import type { Command, Option } from 'commander';

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

/** What a flag's value completes to: a list of words, file names, or nothing to offer. */
export type ValueKind = readonly string[] | 'file' | 'none';

/** One command as completion sees it: its path (`campaigns show`), subcommands and flags. */
interface Node {
  path: string;
  subcommands: string[];
  /** Every spelling of every flag: `--json`, `-q`, `--quiet`. */
  flags: string[];
  /** Flags that take a value, and what the value completes to. */
  values: [flag: string, kind: ValueKind][];
  /** Whether the command's arguments are files (an input, a report). */
  files: boolean;
  /** Whether its argument is a campaign, by ID: offered from the state directory at each Tab. */
  ids: boolean;
}

/** Placeholders that name a file or a folder: `<path>`, `<file>`, `<input...>`, `<report>`. */
const FILE_PLACEHOLDER = /<(path|file|dir|input|report|campaign-or-report|campaign)[^>]*>/;
/**
 * Arguments that take a campaign: its ID completes from `completion --campaigns` (a `<report>`
 * argument is `report`'s, which takes a campaign's ID as well as a report).
 */
const CAMPAIGN_PLACEHOLDER = /<(campaign|campaign-or-report|id|report)>/;

/**
 * The hidden command the scripts run for the state directory's campaign IDs, one a line; named
 * with a leading `__`, as hidden commands of the program are.
 */
export const LIST_CAMPAIGNS = '__campaigns';

/** Every command of the program, depth first, with what its flags and arguments complete to. */
function nodesOf(
  command: Command,
  valuesOf: (option: Option) => readonly string[] | undefined,
  path = '',
): Node[] {
  // Not the scripts' own hidden command (`__campaigns`): no one completes to it.
  const visible = command.commands.filter((c) => !c.name().startsWith('__'));
  const options = command.options.filter((o) => !o.hidden);
  const node: Node = {
    path,
    subcommands: visible.map((c) => c.name()),
    flags: [...options.flatMap((o) => [o.long, o.short]), '--help'].filter(
      (f): f is string => f !== undefined,
    ),
    values: options
      .filter((o) => o.required || o.optional)
      .flatMap((o) => {
        const kind: ValueKind =
          o.argChoices ?? valuesOf(o) ?? (FILE_PLACEHOLDER.test(o.flags) ? 'file' : 'none');
        return [o.long, o.short]
          .filter((f) => f !== undefined)
          .map((f): [string, ValueKind] => [f, kind]);
      }),
    files: command.registeredArguments.some((a) => FILE_PLACEHOLDER.test(`<${a.name()}>`)),
    ids: command.registeredArguments.some((a) => CAMPAIGN_PLACEHOLDER.test(`<${a.name()}>`)),
  };
  const children = visible.flatMap((c) =>
    nodesOf(c, valuesOf, path ? `${path} ${c.name()}` : c.name()),
  );
  return [node, ...children];
}

/** A word list for a shell's single-quoted string. */
const words = (list: readonly string[]): string => list.join(' ').replaceAll("'", '');

/**
 * The completion script for `shell`. `valuesOf` gives the words a flag's value may be (enum
 * settings, time zones); flags with file placeholders complete file names.
 */
export function completionScript(
  shell: Shell,
  program: Command,
  valuesOf: (option: Option) => readonly string[] | undefined,
): string {
  const name = program.name();
  const nodes = nodesOf(program, valuesOf);
  // The default command (send) takes the words typed straight after the program's name.
  const fallback = program.commands.find((c) => c.name() === 'send') ? 'send' : '';
  if (shell === 'fish') return fishScript(name, nodes);
  const bash = bashScript(name, nodes, fallback);
  return shell === 'bash'
    ? bash
    : `#compdef ${name}\n# zsh runs the bash completion through its own bashcompinit.\nautoload -U +X bashcompinit && bashcompinit\n${bash}`;
}

function bashScript(name: string, nodes: Node[], fallback: string): string {
  const fn = `_${name.replace(/[^A-Za-z0-9]/g, '_')}_complete`;
  const descend = nodes.flatMap((n) =>
    n.subcommands.map((s) => `      '${n.path}:${s}') path='${n.path ? `${n.path} ` : ''}${s}' ;;`),
  );
  const values = nodes.flatMap((n) =>
    n.values.map(([flag, kind]) => {
      const reply =
        kind === 'file'
          ? 'COMPREPLY=($(compgen -f -- "$cur"))'
          : kind === 'none'
            ? 'COMPREPLY=()'
            : `COMPREPLY=($(compgen -W '${words(kind)}' -- "$cur"))`;
      return `    '${n.path || fallback}:${flag}') ${reply}; return ;;`;
    }),
  );
  const flags = nodes.map((n) => `    '${n.path}') flags='${words(n.flags)}' ;;`);
  const subs = nodes.map(
    (n) =>
      `    '${n.path}') subs='${words(n.subcommands)}'; files=${n.files ? 1 : 0}; ids=${n.ids ? 1 : 0} ;;`,
  );
  return [
    `# ${name} completion for bash, loaded by the bash-completion package from`,
    `# ~/.local/share/bash-completion/completions/${name}; without that package, source it from ~/.bashrc.`,
    `${fn}() {`,
    '  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path= i flags= subs= files=0 ids=0',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    case "$path:${COMP_WORDS[i]}" in',
    ...descend,
    '    esac',
    '  done',
    '  case "${path:-' + fallback + '}:$prev" in',
    ...values,
    '  esac',
    `  # Before a command is named, flags are the default command's (${fallback || 'none'}).`,
    `  case "\${path:-${fallback}}" in`,
    ...flags,
    '  esac',
    '  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); return; fi',
    '  case "$path" in',
    ...subs,
    '  esac',
    `  [[ -z $path ]] && files=${nodes.find((n) => n.path === fallback)?.files ? 1 : 0}`,
    '  COMPREPLY=($(compgen -W "$subs" -- "$cur"))',
    `  # Campaign IDs from the state directory, asked of ${name} itself (it reads manifests only).`,
    `  if ((ids)); then COMPREPLY+=($(compgen -W "$("\${COMP_WORDS[0]}" ${LIST_CAMPAIGNS} 2>/dev/null)" -- "$cur")); fi`,
    '  if ((files)); then COMPREPLY+=($(compgen -f -- "$cur")); fi',
    '}',
    `complete -o filenames -F ${fn} ${name}`,
    '',
  ].join('\n');
}

function fishScript(name: string, nodes: Node[]): string {
  const lines = [
    `# ${name} completion for fish, loaded from ~/.config/fish/completions/${name}.fish`,
    `complete -c ${name} -f`,
  ];
  const all = nodes.flatMap((n) => n.subcommands);
  for (const node of nodes) {
    const parts = node.path.split(' ').filter(Boolean);
    // A command's flags show once it is named; the top level's are the default command's.
    const condition = parts.length
      ? `__fish_seen_subcommand_from ${parts.at(-1)}`
      : `not __fish_seen_subcommand_from ${all.join(' ')}`;
    for (const sub of node.subcommands) {
      lines.push(`complete -c ${name} -n '${condition}' -a ${sub}`);
    }
    if (node.files) lines.push(`complete -c ${name} -n '${condition}' -F`);
    if (node.ids) {
      lines.push(
        `complete -c ${name} -n '${condition}' -a '(${name} ${LIST_CAMPAIGNS} 2>/dev/null)'`,
      );
    }
    for (const flag of node.flags.filter((f) => f.startsWith('--'))) {
      const kind = node.values.find(([f]) => f === flag)?.[1];
      const value =
        kind === undefined
          ? ''
          : kind === 'file'
            ? ' -r -F'
            : kind === 'none'
              ? ' -r'
              : ` -r -a '${words(kind)}'`;
      lines.push(`complete -c ${name} -n '${condition}' -l ${flag.slice(2)}${value}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
