// What only a process shows of a mistake on the command line: the one stderr line and exit 2.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';

describe('mistakes on the command line: one line on stderr, exit 2', () => {
  it('a mistyped command is named as an unknown command or input, with a suggestion', async () => {
    const run = await runInProcess(['sned', 'x.csv']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe("sms-send: unknown command or input 'sned' (did you mean send?)\n");
  });

  it('an unknown option names the likely one', async () => {
    const run = await runInProcess(['x.csv', '--simlate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("sms-send: unknown option '--simlate' (did you mean --simulate?)\n");
  });

  it('sms-send report on a file that is not a report says so', async () => {
    const input = new URL('../fixtures/input/campaign-a.csv', import.meta.url).pathname;
    const run = await runInProcess(['report', input]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `sms-send: ${input} is not an sms-send report: it has no outcome column\n`,
    );
  });
});
