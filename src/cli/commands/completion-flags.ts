// `sms-send completion bash|zsh|fish`: its flags, help and action; the script is completion.ts's.
import type { Command } from 'commander';
import { examples, setHelp } from '../help.js';
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
  setHelp(completion, [
    examples([
      ['bash', 'sms-send completion bash > ~/.local/share/bash-completion/completions/sms-send'],
      ['zsh (a folder on your $fpath)', 'sms-send completion zsh > ~/.zfunc/_sms-send'],
      ['fish', 'sms-send completion fish > ~/.config/fish/completions/sms-send.fish'],
    ]),
  ]);
}
