// The binary on a real (pseudo-)terminal, through script(1) from util-linux: NO_COLOR honoured,
// the spinner drawn, the confirmation asked and answered, Ctrl-C at it. Pipes cannot show these.
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { onTerminal, SCRIPT } from '../helpers/terminal.js';

const MISSING = 'script(1) from util-linux is not installed: the pseudo-terminal tests did not run';
if (!SCRIPT) process.stderr.write(`test/e2e/terminal.test.ts: ${MISSING}\n`);

const SGR = /\x1b\[[\d;]*m/; // eslint-disable-line no-control-regex
const SPINNER_FRAMES = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
// Past readline's cursor moves, the error on a line of its own; then at most the cursor shown again.
const INTERRUPTED = // eslint-disable-next-line no-control-regex
  /^[^\n]*\r?\nsms-send: interrupted at the confirmation: nothing was sent\r?\n(?:\x1b\[\?25h)?$/;
const PROMPT = 'Send 1,200 messages to the built-in simulator? [y/N] ';
/** The answer typed at the prompt. */
const answer = (keys: string) => [{ when: '[y/N] ', keys }];

describe.skipIf(!SCRIPT).concurrent('on a terminal (a pseudo-terminal from script(1))', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let campaign: string;

  beforeAll(async () => {
    dir = await tempDir();
    campaign = join(dir.path, 'campaign.csv');
    // Over 1,000 messages: a terminal run asks before sending.
    await writeCampaignCsv(campaign, 1200);
  });
  afterAll(() => dir.remove());

  /** Concurrent runs of the same content: each keeps its campaign state apart. */
  const ownState = (name: string) => ({ SMS_SEND_STATE_DIR: join(dir.path, `${name}-state`) });

  it('colours by default: the terminal in these tests does take colour', async ({ expect }) => {
    const run = await onTerminal([campaign, '--dry-run'], { cwd: dir.path });
    expect(run.code).toBe(0);
    expect(run.screen).toMatch(SGR);
  });

  it('NO_COLOR: spinner, confirmation answered "y", summary, and not one colour escape', async ({
    expect,
  }) => {
    const report = join(dir.path, 'yes.report.csv');
    const run = await onTerminal([campaign, '--simulate', '--report', report], {
      cwd: dir.path,
      env: { NO_COLOR: '1', ...ownState('yes') },
      type: answer('y\r'),
    });
    expect(run.code).toBe(0);
    expect(run.screen).toContain(PROMPT);
    expect(run.screen).toMatch(SPINNER_FRAMES);
    expect(run.screen).toContain('1,200 of 1,200 messages accepted');
    expect(run.screen).not.toMatch(SGR);
  });

  it('stderr sent to a file from a terminal: still asks there before sending, and "n" sends nothing', async ({
    expect,
  }) => {
    const log = join(dir.path, 'err.log');
    const run = await onTerminal([campaign, '--simulate'], {
      cwd: dir.path,
      env: ownState('stderr-to-file'),
      type: answer('n\r'),
      stderrTo: log,
    });
    expect(run.code).toBe(2);
    expect(run.screen).toContain(PROMPT);
    expect(await readFile(log, 'utf8')).toContain('not confirmed: nothing was sent');
  });

  it('Ctrl-C at the confirmation: exit 130 on a fresh line, nothing sent', async ({ expect }) => {
    const report = join(dir.path, 'interrupted.report.csv');
    const run = await onTerminal([campaign, '--simulate', '--report', report], {
      cwd: dir.path,
      env: { NO_COLOR: '1', ...ownState('interrupted') },
      type: answer('\x03'),
    });
    expect(run.code).toBe(130);
    const after = run.screen.slice(run.screen.indexOf(PROMPT) + PROMPT.length);
    // No stack, no summary, no half line.
    expect(after).toMatch(INTERRUPTED);
  });
});

describe.skipIf(!SCRIPT)('a finished rehearsal, on a terminal', () => {
  it('declined at the prompt, it stays as it was: not set aside, its report where it was', async ({
    expect,
  }) => {
    const dir = await tempDir();
    try {
      const campaign = join(dir.path, 'reh.csv');
      await writeCampaignCsv(campaign, 1200);
      const env = { NO_COLOR: '1', SMS_SEND_STATE_DIR: join(dir.path, 'state') };
      const rehearsed = await runCli([campaign, '--simulate', '--yes'], { cwd: dir.path, env });
      expect(rehearsed.code, rehearsed.stderr).toBe(0);
      const before = await listed(dir.path, env);

      const declined = await onTerminal([campaign, '--simulate'], {
        cwd: dir.path,
        env,
        type: answer('n\r'),
      });
      expect(declined.code).toBe(2);
      expect(declined.screen).toContain('not confirmed: nothing was sent');
      expect(declined.screen).not.toContain('kept as');
      expect(await listed(dir.path, env)).toEqual(before);
      await access(join(dir.path, 'reh.report.csv'));
    } finally {
      await dir.remove();
    }
  });
});

/** The campaigns of a state directory: ID, status, whether a rehearsal, report. */
async function listed(cwd: string, env: Record<string, string>): Promise<unknown[]> {
  const run = await runCli(['campaigns', '--json'], { cwd, env });
  const { campaigns } = JSON.parse(run.stdout) as {
    campaigns: { id: string; status: string; rehearsal: boolean; report: string }[];
  };
  return campaigns.map(({ id, status, rehearsal, report }) => ({ id, status, rehearsal, report }));
}

// Without script(1), the suite lists a skipped test that says why, rather than passing in silence.
if (!SCRIPT) {
  describe('on a terminal', () => {
    it(MISSING, (context) => context.skip());
  });
}
