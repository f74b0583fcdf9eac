// Shell completion: the bash script, fed to bash, completes commands, flags, enum values and files;
// the zsh and fish scripts are generated from the same program.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagChoices } from '../../src/cli/commands/completion.js';
import { completionScript } from '../../src/cli/completion.js';
import { buildProgram } from '../../src/cli/program.js';
import { send } from '../../src/index.js';
import { BIN, cleanEnv } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';

const program = buildProgram(
  { exitCode: 0, invocation: { program: 'sms-send', args: [] } },
  '0.0.0',
);

let dir: string;
let remove: () => Promise<void>;
let script: string;
beforeAll(async () => {
  ({ path: dir, remove } = await tempDir());
  script = join(dir, 'sms-send.bash');
  await writeFile(script, completionScript('bash', program, flagChoices));
  await writeFile(join(dir, 'campaign.csv'), 'to,text\n');
  await writeFile(join(dir, 'campaign.report.csv'), '');
  // sms-send on the PATH, as an install puts it there, for the campaign IDs the script asks for.
  await mkdir(join(dir, 'bin'));
  const wrapper = join(dir, 'bin', 'sms-send');
  await writeFile(
    wrapper,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`,
  );
  await chmod(wrapper, 0o755);
});
afterAll(() => remove());

/** What bash offers for the command line `words` (the last word being completed). */
function complete(...words: string[]): string[] {
  const probe = [
    `source ${JSON.stringify(script)}`,
    'COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()',
    '_sms_send_complete',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  // Where a campaign goes, the script asks sms-send for the IDs in this test's state directory.
  const out = execFileSync('bash', ['-c', probe, 'bash', 'sms-send', ...words], {
    cwd: dir,
    encoding: 'utf8',
    env: cleanEnv({
      PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`,
      SMS_SEND_STATE_DIR: join(dir, 'state'),
    }),
  });
  return out.split('\n').filter(Boolean).sort();
}

describe('the bash completion script', () => {
  it.each<[string, string[], string[]]>([
    ['a command', ['ch'], ['check']],
    [
      'commands and input files together',
      ['camp'],
      ['campaign.csv', 'campaign.report.csv', 'campaigns'],
    ],
    ['a subcommand', ['campaigns', 'pr'], ['prune']],
    ['a subcommand of dlr', ['dlr', 'ap'], ['apply']],
    ["a command's flag", ['check', '--js'], ['--json']],
    ["the default command's flags before a command is named", ['--dry'], ['--dry-run']],
    ['an enum value: --input-format', ['x.csv', '--input-format', 'n'], ['ndjson']],
    ['an enum value: --message-type', ['send', '--message-type', '1'], ['10', '11']],
    ['an enum value: --tz', ['--tz', 'Europe/Osl'], ['Europe/Oslo']],
    [
      'an enum value of retry: --include',
      ['retry', 'x', '--include', 'u'],
      ['undelivered', 'unknown'],
    ],
    ['a file for a file flag', ['--report', 'campaign.r'], ['campaign.report.csv']],
    ['nothing for a free value', ['--batch-size', ''], []],
    ['a shell for completion itself', ['comp'], ['completion']],
  ])('%s', (_label, words, expected) => {
    expect(complete(...words)).toEqual(expected);
  });
});

describe('campaign IDs where a campaign goes', () => {
  it("offers the state directory's campaigns to retry, campaigns show and report, and files where a report may go", async () => {
    const input = join(dir, 'state', 'nightly.csv');
    await mkdir(join(dir, 'state'), { recursive: true });
    await writeFile(input, 'to,text\n4741234567,hi\n');
    const { summary } = await send({
      inputs: [input],
      simulate: true,
      settings: { stateDir: join(dir, 'state'), campaign: 'nightly-2026' },
      report: join(dir, 'nightly.report.csv'),
    });
    expect(summary.campaign).toBe('nightly-2026');
    expect(complete('retry', 'nig')).toEqual(['nightly-2026', 'nightly.report.csv']);
    expect(complete('campaigns', 'show', 'n')).toEqual(['nightly-2026']);
    expect(complete('report', 'nightly')).toEqual(['nightly-2026', 'nightly.report.csv']);
  });
});

describe('zsh and fish', () => {
  it('zsh loads the same completion through bashcompinit', () => {
    const zsh = completionScript('zsh', program, flagChoices);
    expect(zsh.split('\n').slice(0, 3)).toEqual([
      '#compdef sms-send',
      '# zsh runs the bash completion through its own bashcompinit.',
      'autoload -U +X bashcompinit && bashcompinit',
    ]);
    expect(zsh).toContain('complete -o filenames -F _sms_send_complete sms-send');
  });

  it('fish lists each command, flag and enum value', () => {
    const fish = completionScript('fish', program, flagChoices).split('\n');
    expect(fish).toContain(
      "complete -c sms-send -n 'not __fish_seen_subcommand_from send check config campaigns retry simulate dlr report completion list show prune apply' -a check",
    );
    expect(fish).toContain(
      "complete -c sms-send -n '__fish_seen_subcommand_from send' -l input-format -r -a 'csv json ndjson'",
    );
    expect(fish).toContain("complete -c sms-send -n '__fish_seen_subcommand_from check' -l json");
    expect(fish).toContain(
      "complete -c sms-send -n '__fish_seen_subcommand_from prune' -l older-than -r",
    );
  });
});
