// Words of a command line written so a POSIX shell reads them back as they are, and the commands
// sms-send writes for its user.
import { maskUserInfo } from './url.js';

/** A word as a POSIX shell reads it back: bare when safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * The program as the user runs it (`sms-send`, `npx sms-send`), and the flags every command
 * written for them carries: where the campaigns' state is (`--state-url`, `--state-dir`,
 * `--config`, `--profile`), as they gave it on their own command line. A command printed without
 * them would look for the campaign somewhere else.
 */
export interface Program {
  readonly name: string;
  /** Each flag with its value: `['--state-url', 'postgres://…']`, `['--profile=prod']`. */
  readonly carry: readonly (readonly string[])[];
}

/** The program a command is written for when nothing says how the user runs it. */
export const BARE_PROGRAM: Program = { name: 'sms-send', carry: [] };

/**
 * A command for the user to run: the program, `args`, then each carried flag `args` does not give
 * itself; every word with a URL's password masked, and quoted for the shell.
 */
export function commandText(program: Program, args: readonly string[]): string {
  const flag = (word: string) => word.split('=')[0]!;
  const given = new Set(args.map(flag));
  const carried = program.carry.filter(([name]) => !given.has(flag(name!))).flat();
  const words = [...args, ...carried].map((word) => shellWord(maskUserInfo(word)));
  return [program.name, ...words].join(' ');
}
