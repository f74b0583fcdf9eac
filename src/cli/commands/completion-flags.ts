// `sms-send completion bash|zsh|fish`: its flags, help and action; the script is completion.ts's.
import type { Command } from 'commander';
import { LIST_CAMPAIGNS } from '../completion.js';
import { examples, exitCodes, setHelp } from '../help.js';
import { EXIT_CODE_MEANING } from '../../shared/errors.js';
import type { RunState } from '../run-state.js';

export function defineCompletion(program: Command, state: RunState): void {
  const completion = program
    .command('completion')
    .description('print a shell completion script for bash, zsh or fish')
    .argument('<shell>', 'bash, zsh or fish')
    .action(async (shell: string) => {
      const { runCompletion } = await import('./completion.js');
      state.exitCode = runCompletion(shell, program);
    });
  // What the scripts ask at each Tab where a campaign goes; not a command for people.
  program
    .command(LIST_CAMPAIGNS, { hidden: true })
    .option('--state-dir <path>')
    .action(async (flags: { stateDir?: string }) => {
      const { runListCampaigns } = await import('./completion.js');
      state.exitCode = await runListCampaigns(flags);
    });
  setHelp(completion, [
    examples([
      [
        'bash (needs the bash-completion package: apt install bash-completion, brew install bash-completion@2)',
        'mkdir -p ~/.local/share/bash-completion/completions && sms-send completion bash > ~/.local/share/bash-completion/completions/sms-send',
      ],
      ['bash without that package', "echo 'source <(sms-send completion bash)' >> ~/.bashrc"],
      [
        'zsh (the folder must be on $fpath, before compinit runs in ~/.zshrc)',
        'mkdir -p ~/.zfunc && sms-send completion zsh > ~/.zfunc/_sms-send',
      ],
      [
        'fish',
        'mkdir -p ~/.config/fish/completions && sms-send completion fish > ~/.config/fish/completions/sms-send.fish',
      ],
    ]),
    {
      title: 'Completes:',
      lines: [
        'commands, flags, the values of flags that take a few (--message-type, --tz, …), files',
        'where a file goes, and campaign IDs from the state directory where a campaign goes',
        '(retry, campaigns show, report). A new shell loads the script.',
      ],
    },
    exitCodes({
      0: 'the script was printed',
      2: 'not bash, zsh or fish',
      70: EXIT_CODE_MEANING[70],
    }),
  ]);
}
