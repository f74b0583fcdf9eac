// The command line in-process: usage errors in sms-send's voice, grouped help (snapshots at a
// pinned width, no colour), and the tables of the README and docs/configuration.md, which must
// match --help and the settings table.
import { existsSync, readFileSync } from 'node:fs';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { settingHelp } from '../../src/cli/flags.js';
import { buildProgram } from '../../src/cli/program.js';
import { SETTING_KEYS, SETTINGS, type SettingSpec } from '../../src/config/table.js';
import { EXIT_CODE_MEANING, ExitCode, UsageError } from '../../src/shared/errors.js';

function program(): Command {
  return buildProgram(
    { exitCode: ExitCode.ok, invocation: { program: 'sms-send', args: [] } },
    '0.0.0-test',
  );
}

function command(path: string): Command {
  let found = program();
  for (const name of path.split(' ').filter(Boolean)) {
    found = found.commands.find((c) => c.name() === name)!;
  }
  // Help as a terminal 80 columns wide without colour shows it, whatever runs the tests.
  return found.configureOutput({ getOutHelpWidth: () => 80, getOutHasColors: () => false });
}

/** What `sms-send ARGV` says on stderr after "sms-send: " (argv that fails before any action). */
async function usageError(argv: string[]): Promise<string> {
  const error: unknown = await program()
    .parseAsync(argv, { from: 'user' })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(UsageError);
  expect((error as UsageError).exitCode).toBe(2);
  return (error as UsageError).message;
}

describe('usage errors: one line in sms-send voice, with a hint', () => {
  it.each([
    [['--simlate', 'x.csv'], "unknown option '--simlate' (did you mean --simulate?)"],
    [
      ['send', 'x.csv', '--bach-size', '5'],
      "unknown option '--bach-size' (did you mean --batch-size?)",
    ],
    [['check', '--bogus'], "unknown option '--bogus' (run sms-send check --help)"],
    [['check', '--batch-size', '5'], "unknown option '--batch-size' (run sms-send check --help)"],
    [['--simulate'], "missing required argument 'input' (run sms-send --help)"],
    [['-v'], '-v is --verbose, for a send: it needs an input (did you mean sms-send --version?)'],
    [['send'], "missing required argument 'input' (run sms-send send --help)"],
    [['report'], "missing required argument 'report' (run sms-send report --help)"],
    [
      ['dlr'],
      '--report is required: the state directory keeps no delivery reports, so the receiver ' +
        'records them in the report (with a state URL, reports are kept in the database and ' +
        '--report is optional)',
    ],
    [
      ['x.csv', '--limit', 'x'],
      '--limit "x": must be a whole number, 1 or more (run sms-send send --help)',
    ],
    [['sned', 'x.csv'], "unknown command or input 'sned' (did you mean send?)"],
    [['campaign'], "unknown command or input 'campaign' (did you mean campaigns?)"],
    [['frobnicate'], "unknown command or input 'frobnicate' (run sms-send --help)"],
  ])('sms-send %j', async (argv, message) => {
    expect(await usageError(argv)).toBe(message);
  });

  it('a first input that exists, or has an extension, is an input, not a command', async () => {
    // README.md exists (and cannot be sent); nothere.csv looks like a file.
    expect(await usageError(['nothere.csv', '--bogus'])).toContain("unknown option '--bogus'");
  });
});

describe('help', () => {
  it('send --help groups its flags and lists examples, exit codes and environment', () => {
    expect(command('send').helpInformation()).toMatchInlineSnapshot(`
      "Usage: sms-send send [options] <input...>

      send every record of the input files (the default command)

      Arguments:
        input                          CSV, JSON or NDJSON files with recipients and
                                       texts ("-": stdin)

      Input:
        --text <template>              message text with {{column}} placeholders
        --text-file <path>             read the text template from a file
        --map <to=COL,text=COL>        which columns hold the recipient and the text
        --input-format <format>        csv, json or ndjson (for stdin or odd
                                       extensions)
        --delimiter <char>             CSV delimiter (default: detected from the
                                       header among , ; and tab)
        --skip-invalid                 send the valid records and report invalid ones,
                                       instead of stopping
        --limit <n>                    send only the first N valid records; report the
                                       rest as skipped (not part of the campaign:
                                       --resume --limit M sends up to M)
        --dedupe                       skip records whose recipient and text repeat an
                                       earlier record
        --skip-sent-by <campaign>      send this content as a campaign of its own,
                                       leaving out every recipient that campaign (ID
                                       or its start), or a campaign linked to it by
                                       --skip-sent-by or retry, accepted or may have
                                       sent; repeatable
        --strict                       refuse (exit 2) rather than warn for every
                                       {word} in single braces, not only those close
                                       to a column
        --suppress <file>              skip recipients listed in this file: one number
                                       a line, or a CSV with a phone column
                                       (repeatable)

      Message:
        --gateway <number>             Gateway number (default 99700999)
        --from <sender>                OriginatorAddress: up to 11 letters/digits, or
                                       up to 25 digits
        --price <øre>                  Price billed to the recipient, in øre (premium
                                       gateways only) (default 0)
        --message-type <type>          MessageType ("00" text, "11" long text, "10"
                                       binary)
        --validity <period>            ValidationPeriod: yyyymmddhhmmss or a duration
                                       such as 2h
        --category <name>              Category on the bill
        --dlr-url <url>                DeliveryReportUrl, with [$MSGID] [$STATUS] …
                                       placeholders
        --custom <key=value>           CustomData entry (repeatable)
        --service-code <code>          ServiceCode (premium)
        --service-description <text>   ServiceDescription (premium)
        --country <CC>                 country for national numbers, e.g. NO

      Cost:
        --gsm-normalize                replace typographic quotes, dashes, spaces and
                                       the like with GSM-7 look-alikes, so texts stay
                                       GSM-7
        --max-segments <n>             a record whose text needs more segments than
                                       this is invalid
        --price-per-segment <price>    what the gateway bills you per segment, for the
                                       cost estimate: 0.5, or by calling code:
                                       47=0.35,default=0.5
        --currency <code>              currency of the prices and --max-cost, e.g. NOK
        --max-cost <amount>            refuse to send a campaign estimated to cost
                                       more than this (needs a price per segment)

      Sending:
        --dry-run                      validate and print the plan; send nothing
        -y, --yes                      do not ask before sending over 1,000 messages
                                       (asked when stdin is a terminal)
        --force                        send a campaign that was already sent, all
                                       again; overwrite its report
        --resume                       finish an interrupted or stopped campaign from
                                       its journal; nothing settled is resent
        --once                         start the campaign, finish it if an earlier run
                                       was interrupted or stopped, or do nothing if it
                                       is finished (exit 0, or 1 as the run that
                                       finished it when some records were not
                                       accepted): one command line for a job that may
                                       run again
        --retry-unknown                also resend messages whose outcome is unknown
                                       (may send them twice)
        --no-wait                      outside the send window (--window, --days,
                                       --not-before), exit 5 instead of waiting
        --batch-size <n>               messages per request (default 100)
        --concurrency <n>              requests in flight (default 4)
        --rate <n>                     messages per second (0 or unset: unlimited)
        --outage-grace <duration>      how long to wait for a gateway that stopped
                                       answering before stopping (exit 3); 0 never
                                       waits (default 60s)
        --retries <n>                  retries of a request the gateway surely did not
                                       process (default 3)
        --window <HH:MM-HH:MM>         send only between these times of day, e.g.
                                       09:00-21:00 (22:00-06:00 crosses midnight)
        --days <days>                  send only on these days, e.g. mon-fri,
                                       mon,wed,fri or sat-sun
        --tz <zone>                    time zone of --window, --days and --not-before,
                                       e.g. Europe/Oslo (default: the machine's)
        --not-before <date-time>       send nothing before this time, e.g.
                                       2026-12-01T09:00 (in --tz unless it has an
                                       offset)

      Report and state:
        --report <path>                report file: .csv, .json, .ndjson or .xml
                                       (JUnit); {date} {time} {name} filled in;
                                       default <input>.report.csv
        --html <path>                  also write the campaign as one HTML page with
                                       charts when the run ends
        --state-dir <path>             where campaign state (journal, lock, manifest)
                                       lives; default $XDG_STATE_HOME/sms-send
        --state-url <url>              keep campaign state in PostgreSQL, e.g.
                                       postgres://sms@db/sms (PGHOST, PGUSER,
                                       PGPASSWORD, PGDATABASE fill what it leaves
                                       out): every host that sends sees it
        --lease <duration>             with --state-url: how long a run that stopped
                                       renewing its hold on a campaign keeps it from
                                       other hosts (default 30s)
        --campaign <name>              campaign name ({date}, {time}, {name} allowed)
                                       instead of one derived from the content

      Output:
        --json                         print the summary (or the --dry-run plan) as
                                       one JSON document on stdout
        -q, --quiet                    print only errors
        -v, --verbose                  print a line per batch (status, latency,
                                       attempts)
        --progress-interval <seconds>  seconds between progress lines when not on a
                                       terminal (default 10)
        --no-color                     no colours in output
        -h, --help                     show this help

      Gateway and credentials:
        --simulate                     send to the built-in simulator on loopback:
                                       nothing reaches a phone
        --endpoint <url>               gateway base URL, e.g.
                                       https://smsgw.intele.no/pushsms/rest
        --proxy <url>                  HTTP proxy to reach the gateway through, e.g.
                                       http://user:pass@proxy:3128 (default:
                                       HTTPS_PROXY or HTTP_PROXY, with NO_PROXY)
        --ca-file <path>               PEM file of CA certificates to trust besides
                                       the system's (a private gateway's, a
                                       TLS-inspecting proxy's)
        --timeout <duration>           how long to wait for the gateway's answer to
                                       one request (default 30s)
        --config <path>                config file (default: searched from the current
                                       folder)
        --profile <name>               profile from the config file
        --password-stdin               read the password from standard input
        --allow-insecure               allow credentials over plain http to a
                                       non-loopback host

      Examples:
        # try it: the built-in simulator, nothing reaches a phone
        $ sms-send samples/campaign.csv --simulate
        # validate every record and show the plan; send nothing
        $ sms-send campaign.csv --dry-run
        # a cron job: endpoint and credentials from config, one report a day
        $ sms-send tonight.csv --yes --quiet --report 'reports/{date}.csv'
        # from standard input
        $ generate-list | sms-send - --input-format ndjson --text "Hi {{name}}"
        # finish a run that was interrupted or stopped
        $ sms-send campaign.csv --resume

      Exit codes:
        0    everything accepted (or: a dry run or check passed)
        1    the run finished but some records were rejected, invalid, failed or
             unknown
        2    usage, config or input error, or the campaign was already sent or is
             unfinished; nothing was sent
        3    the gateway could not be used: unreachable, credentials refused, or too
             many request-level failures in a row
        4    another run holds this campaign's lock; nothing was sent
        5    outside the send window (--no-wait), or stopped when it closed; --resume
             continues
        6    stopped because campaign state could not be written (disk full,
             read-only); --resume continues once it can be
        70   an unexpected internal error (a bug; please report it)
        130  interrupted; --resume finishes the campaign

      Environment:
        SMS_SEND_ENDPOINT    gateway base URL, e.g.
                             https://smsgw.intele.no/pushsms/rest
        SMS_SEND_PROXY       HTTP proxy to reach the gateway through, e.g.
                             http://user:pass@proxy:3128 (default: HTTPS_PROXY or
                             HTTP_PROXY, with NO_PROXY)
        SMS_SEND_CA_FILE     PEM file of CA certificates to trust besides the system's
                             (a private gateway's, a TLS-inspecting proxy's)
        SMS_SEND_USERNAME    account (customer id) sent as Username
        SMS_SEND_PASSWORD    the password (prefer passwordFile, passwordEnv or
                             --password-stdin)
        SMS_SEND_STATE_DIR   where campaign state (journal, lock, manifest) lives;
                             default $XDG_STATE_HOME/sms-send
        SMS_SEND_STATE_URL   keep campaign state in PostgreSQL, e.g.
                             postgres://sms@db/sms (PGHOST, PGUSER, PGPASSWORD,
                             PGDATABASE fill what it leaves out): every host that
                             sends sees it
        SMS_SEND_LEASE       with --state-url: how long a run that stopped renewing
                             its hold on a campaign keeps it from other hosts
        SMS_SEND_PROFILE     profile from the config file (as --profile)
        HTTPS_PROXY          proxy for an https gateway (https_proxy too; else
                             HTTP_PROXY)
        HTTP_PROXY           proxy for an http gateway (http_proxy too)
        NO_PROXY             hosts reached directly, not through a proxy (no_proxy
                             too)
        NODE_EXTRA_CA_CERTS  PEM file of CA certificates Node trusts besides its own
        NO_COLOR             no colours in output (as --no-color)

      Learn more:
        sms-send <command> --help shows what a command takes. The README explains
        input, the report, campaigns and state, cron, CI and the --json documents.
      "
    `);
  });

  it('check --help shows only the flags check uses', () => {
    const help = command('check').helpInformation();
    expect(help).toMatchInlineSnapshot(`
      "Usage: sms-send check [options]

      check that the gateway answers and accepts the credentials; sends nothing

      Gateway and credentials:
        --simulate                    send to the built-in simulator on loopback:
                                      nothing reaches a phone
        --endpoint <url>              gateway base URL, e.g.
                                      https://smsgw.intele.no/pushsms/rest
        --proxy <url>                 HTTP proxy to reach the gateway through, e.g.
                                      http://user:pass@proxy:3128 (default:
                                      HTTPS_PROXY or HTTP_PROXY, with NO_PROXY)
        --ca-file <path>              PEM file of CA certificates to trust besides the
                                      system's (a private gateway's, a TLS-inspecting
                                      proxy's)
        --timeout <duration>          how long to wait for the gateway's answer to one
                                      request (default 30s)
        --config <path>               config file (default: searched from the current
                                      folder)
        --profile <name>              profile from the config file
        --password-stdin              read the password from standard input
        --allow-insecure              allow credentials over plain http to a
                                      non-loopback host
        --retries <n>                 retries of a request the gateway surely did not
                                      process (default 3)

      Test message:
        --to <msisdn>                 send one real test message to this number
                                      instead
        --text <text>                 text of the test message (with --to)
        --gateway <number>            Gateway number (default 99700999)
        --from <sender>               OriginatorAddress: up to 11 letters/digits, or
                                      up to 25 digits
        --price <øre>                 Price billed to the recipient, in øre (premium
                                      gateways only) (default 0)
        --message-type <type>         MessageType ("00" text, "11" long text, "10"
                                      binary)
        --validity <period>           ValidationPeriod: yyyymmddhhmmss or a duration
                                      such as 2h
        --category <name>             Category on the bill
        --dlr-url <url>               DeliveryReportUrl, with [$MSGID] [$STATUS] …
                                      placeholders
        --custom <key=value>          CustomData entry (repeatable)
        --service-code <code>         ServiceCode (premium)
        --service-description <text>  ServiceDescription (premium)
        --country <CC>                country for national numbers, e.g. NO

      Canary:
        --await-dlr <duration>        with --to: wait this long for the test message's
                                      delivery report, e.g. 60s
        --dlr-public-url <url>        where the gateway reaches check's receiver (a
                                      tunnel or proxy); not needed with --simulate or
                                      a loopback endpoint, nor with a state URL and
                                      --dlr-url (the fleet's receivers)
        --dlr-port <n>                port of check's receiver on 127.0.0.1 (default:
                                      a free one)
        --dlr-mix <mix>               with --simulate: status=weight,… the simulator
                                      reports, e.g. UNDELIV=1 (default DELIVRD)
        --state-url <url>             keep campaign state in PostgreSQL, e.g.
                                      postgres://sms@db/sms (PGHOST, PGUSER,
                                      PGPASSWORD, PGDATABASE fill what it leaves out):
                                      every host that sends sees it

      Output:
        --json                        print the result as one JSON document on stdout
        --no-color                    no colours in output
        -h, --help                    show this help

      Examples:
        # is the gateway up and are the credentials good?
        $ sms-send check --json
        # send one real test message
        $ sms-send check --to +4741234567 --text "test"
        # an end-to-end canary: the test message must be delivered within a minute
        $ sms-send check --to +4741234567 --await-dlr 60s --dlr-public-url https://canary.example.com

      Exit codes:
        0   the gateway answered and took the credentials (and the test message, with
            --to; which was delivered, with --await-dlr)
        1   with --await-dlr: the delivery report came with another status (UNDELIV,
            EXPIRED, REJECTD…)
        2   usage or config error; nothing was sent
        3   the gateway could not be used, or refused the credentials or the test
            message, or no delivery report came within --await-dlr
        70  an unexpected internal error (a bug; please report it)

      Environment:
        SMS_SEND_ENDPOINT    gateway base URL, e.g.
                             https://smsgw.intele.no/pushsms/rest
        SMS_SEND_PROXY       HTTP proxy to reach the gateway through, e.g.
                             http://user:pass@proxy:3128 (default: HTTPS_PROXY or
                             HTTP_PROXY, with NO_PROXY)
        SMS_SEND_CA_FILE     PEM file of CA certificates to trust besides the system's
                             (a private gateway's, a TLS-inspecting proxy's)
        SMS_SEND_USERNAME    account (customer id) sent as Username
        SMS_SEND_PASSWORD    the password (prefer passwordFile, passwordEnv or
                             --password-stdin)
        SMS_SEND_PROFILE     profile from the config file (as --profile)
        HTTPS_PROXY          proxy for an https gateway (https_proxy too; else
                             HTTP_PROXY)
        HTTP_PROXY           proxy for an http gateway (http_proxy too)
        NO_PROXY             hosts reached directly, not through a proxy (no_proxy
                             too)
        NODE_EXTRA_CA_CERTS  PEM file of CA certificates Node trusts besides its own
        NO_COLOR             no colours in output (as --no-color)
      "
    `);
    for (const flag of ['--batch-size', '--concurrency', '--rate', '--campaign']) {
      expect(help).not.toContain(flag);
    }
  });

  it('sms-send --help lists every command and subcommand a user can run', () => {
    const help = command('').helpInformation();
    const names: string[] = [];
    // Hidden commands are the completion scripts' own (`__campaigns`), not a user's.
    const walk = (parent: Command, prefix: string[]) => {
      for (const sub of parent.commands) {
        if (sub.name().startsWith('__')) continue;
        names.push([...prefix, sub.name()].join(' '));
        walk(sub, [...prefix, sub.name()]);
      }
    };
    walk(program(), []);
    expect(names).toContain('campaigns show');
    for (const name of names) expect(help).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });

  it("sms-send --help's examples name files that are in the repository", () => {
    const help = command('').helpInformation();
    const files = [...help.matchAll(/^ {2}\$ .*$/gm)].flatMap((line) =>
      line[0].split(' ').filter((word) => /\.(csv|json|ndjson)$/.test(word)),
    );
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      // A report is the one the quick start writes beside its input.
      const input = file.replace(/\.report\.csv$/, '.csv');
      expect(existsSync(new URL(`../../${input}`, import.meta.url)), file).toBe(true);
    }
  });

  it('every exit code of src/shared/errors.ts is in send --help', () => {
    const help = command('send').helpInformation();
    for (const code of Object.values(ExitCode))
      expect(help).toMatch(new RegExp(`^  ${code} `, 'm'));
  });
});

/** The section of `page` (the README or a docs page) that starts with `heading`. */
function readmeSection(heading: string, page = 'README.md'): string {
  const readme = readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8');
  const start = readme.indexOf(`${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n## ', start + heading.length);
  return readme.slice(start, end === -1 ? undefined : end);
}

/** The flag tables of `send`, one per help group, in docs/configuration.md. */
function flagTables(): string {
  return readmeSection('## Flags of `send`', 'docs/configuration.md');
}

/** Cells of a table row, markdown escapes and code ticks removed. */
function rows(section: string): { group: string; cells: string[] }[] {
  let group = '';
  const out: { group: string; cells: string[] }[] = [];
  for (const line of section.split('\n')) {
    if (line.startsWith('### ')) group = line.slice(4);
    if (!line.startsWith('| ') || /^\| -/.test(line)) continue;
    const cells = line
      .slice(2, -2)
      .split(/ (?<!\\)\| /)
      .map((cell) =>
        cell
          .trim()
          .replace(/\\([<|])/g, '$1')
          .replace(/^`(.*)`$/, '$1'),
      );
    out.push({ group, cells });
  }
  return out.filter(({ cells }) => !['flag', 'command', 'code'].includes(cells[0]!));
}

describe('the tables of README.md and docs/configuration.md match --help', () => {
  it('Flags of `send`: every flag of send --help, in its group, with its help text', () => {
    const send = command('send');
    const helper = send.createHelp();
    const options = helper.visibleOptions(send).map((o: Option) => ({
      group: o.helpGroupHeading!.replace(/:$/, ''),
      cells: [o.flags, o.description],
    }));
    const byGroup = (list: { group: string; cells: string[] }[]) =>
      [...list].sort(
        (a, b) => a.group.localeCompare(b.group) || a.cells[0]!.localeCompare(b.cells[0]!),
      );
    expect(byGroup(rows(flagTables()))).toEqual(byGroup(options));
  });

  it('Flags of `send`: every setting of src/config/table.ts with a flag, with its help and default', () => {
    const readme = new Map(rows(flagTables()).map((r) => [r.cells[0], r.cells[1]]));
    for (const key of SETTING_KEYS) {
      const spec: SettingSpec = SETTINGS[key];
      if (spec.flag !== undefined) expect(readme.get(spec.flag), key).toBe(settingHelp(spec));
    }
  });

  it('Commands: every command and subcommand with its description', () => {
    const root = program();
    const helper = root.createHelp();
    // The overview lists subcommands too, under their full names (see the help tests above).
    const expected = helper
      .visibleCommands(root)
      .filter((sub) => sub.name() !== 'help')
      .map((sub) => [`sms-send ${helper.subcommandTerm(sub)}`, sub.description()]);
    expect(rows(readmeSection('## Commands')).map((r) => r.cells)).toEqual(expected);
  });

  it('Exit codes: every code of src/shared/errors.ts with its meaning', () => {
    expect(rows(readmeSection('## Exit codes')).map((r) => r.cells)).toEqual(
      Object.entries(EXIT_CODE_MEANING).map(([code, meaning]) => [code, meaning]),
    );
  });
});
