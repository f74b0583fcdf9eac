// Every RestSmsMessageReq field reaches the simulator exactly as the record or the defaults set it:
// per-record columns (PascalCase, camelCase, JSON), defaults from flags and from a config file.
// In-process, through the send command's pipeline (test/helpers/pipeline.ts).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.js';
import { runPipeline, type PipelineRun } from '../helpers/pipeline.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/input/', import.meta.url));

let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.remove();
});

/** Sends with a fresh simulator and report; `cwd` (where config is searched) defaults to the fixtures. */
function send(args: string[], cwd = FIXTURES): Promise<PipelineRun> {
  return runPipeline(args, { cwd, workDir: dir.path });
}

/**
 * The DeliveryReportUrl as given, byte for byte, with the proof sms-send adds as one more query
 * parameter: 22 base64url characters of MAC and the campaign's ID.
 */
function signed(url: string): string {
  const escaped = url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const separator = url.includes('?') ? '&' : '\\?';
  return expect.stringMatching(
    new RegExp(`^${escaped}${separator}smsig=[A-Za-z0-9_-]{22}\\.[0-9a-f]{16}$`),
  ) as string;
}

/** yyyymmddhhmmss in UTC, computed independently of src/. */
function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\D/g, '').slice(0, 14);
}

/** Flags that set every message default there is a flag for. */
const DEFAULT_FLAGS = [
  '--gateway',
  '2270',
  '--from',
  'FlagShop',
  '--price',
  '200',
  '--message-type',
  '00',
  '--validity',
  '20291130120000',
  '--category',
  'flag-cat',
  '--dlr-url',
  'https://flags.example/dlr',
  '--custom',
  'qos=3',
  '--custom',
  'channel=sms',
  '--service-code',
  'FLAG-SC',
  '--service-description',
  'Flag service',
];

describe.concurrent('every RestSmsMessageReq field reaches the simulator exactly', () => {
  it('a record setting every field by PascalCase columns; the next relying on the flags', async ({
    expect,
  }) => {
    const run = await send(['fields-every.csv', ...DEFAULT_FLAGS]);
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(0);
    expect(run.messages).toHaveLength(2);
    // Row 1: every column set, so every flag is overridden. CustomData is the CustomData column's
    // object plus the CustomData.region column; its keys cover those of --custom.
    expect(run.messages[0]).toEqual({
      Gateway: 1933,
      OriginatorAddress: 'RecShop',
      DestinationAddress: 4741234567,
      Price: 300,
      MessageType: '11',
      ValidationPeriod: '20301231235959',
      MessageId: 'rec-1',
      UserDataHeader: '050003A10201',
      UserData: 'Hei Kari, din kode er klar',
      Category: 'rec-cat',
      CustomData: { qos: 1, channel: 'push', region: 'north' },
      DeliveryReportUrl: signed('https://example.com/dlr?id=[$MSGID]&status=[$STATUS]'),
      ServiceCode: 'REC-SC',
      ServiceDescription: 'Record service',
    });
    // Row 2: every cell empty but to and text, so every field comes from a flag (there is no
    // UserDataHeader default) and the MessageId is generated as <campaign key>-<row>.
    expect(run.messages[1]).toEqual({
      Gateway: 2270,
      OriginatorAddress: 'FlagShop',
      DestinationAddress: 4791234567,
      Price: 200,
      MessageType: '00',
      ValidationPeriod: '20291130120000',
      MessageId: expect.stringMatching(/^[0-9a-f]{10}-2$/) as string,
      UserData: 'Defaults apply here',
      Category: 'flag-cat',
      CustomData: { qos: '3', channel: 'sms' },
      DeliveryReportUrl: signed('https://flags.example/dlr'),
      ServiceCode: 'FLAG-SC',
      ServiceDescription: 'Flag service',
    });
    expect(run.rows.map((r) => r.messageId)).toEqual(run.messages.map((m) => m.MessageId));
  });

  it('a record setting every field by camelCase columns', async ({ expect }) => {
    const run = await send(['fields-camel.csv']);
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(0);
    expect(run.messages).toEqual([
      {
        Gateway: 1933,
        OriginatorAddress: '12345678',
        DestinationAddress: 4791234567,
        Price: 0,
        MessageType: '00',
        ValidationPeriod: '20301231235959',
        MessageId: 'camel-1',
        UserDataHeader: '0500',
        UserData: 'Camel case columns',
        Category: 'camel-cat',
        CustomData: { qos: 2, tier: 'gold' },
        DeliveryReportUrl: signed('https://example.com/camel'),
        ServiceCode: 'CAMEL-SC',
        ServiceDescription: 'Camel service',
      },
    ]);
  });

  it('JSON records: native types kept, numbers given as strings sent as integers', async ({
    expect,
  }) => {
    const run = await send(['fields-every.json']);
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(0);
    expect(run.messages).toEqual([
      {
        Gateway: 1933,
        OriginatorAddress: 'JsonShop',
        DestinationAddress: 46701234567,
        Price: 150,
        MessageType: '11',
        ValidationPeriod: '20301231235959',
        MessageId: 'json-1',
        UserDataHeader: '050003A10201',
        UserData: 'JSON sets every field',
        Category: 'json-cat',
        CustomData: { qos: 1, nested: { a: true }, list: [1, 2] },
        DeliveryReportUrl: signed('https://example.com/json?id=[$MSGID]'),
        ServiceCode: 'JSON-SC',
        ServiceDescription: 'Json service',
      },
      {
        Gateway: 2270,
        DestinationAddress: 4741234567,
        Price: 0,
        MessageType: '00',
        MessageId: 'json-2',
        UserData: 'camelCase keys, numbers as strings',
        CustomData: { qos: 2 },
      },
    ]);
  });

  it('defaults from a config file given with --config (country included)', async ({ expect }) => {
    // fields-defaults.csv holds a national number, 412 34 567: the config's country NO places it.
    const run = await send(['fields-defaults.csv', '--config', 'fields-config.json']);
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(0);
    expect(run.messages).toEqual([
      {
        Gateway: 1933,
        OriginatorAddress: 'CfgShop',
        DestinationAddress: 4741234567,
        Price: 100,
        MessageType: '11',
        ValidationPeriod: '20300615080000',
        MessageId: expect.stringMatching(/^[0-9a-f]{10}-1$/) as string,
        UserData: 'Defaults from the config file',
        Category: 'cfg-cat',
        CustomData: { qos: 2, source: 'config' },
        DeliveryReportUrl: signed('https://config.example/dlr?msgid=[$MSGID]'),
        ServiceCode: 'CFG-SC',
        ServiceDescription: 'Config service',
      },
    ]);
  });

  it('a config file found from the working folder, a profile over it, and flags over both', async ({
    expect,
  }) => {
    const cwd = join(dir.path, 'project');
    await mkdir(cwd, { recursive: true });
    const config = JSON.parse(await readFile(join(FIXTURES, 'fields-config.json'), 'utf8')) as {
      profiles?: unknown;
    };
    config.profiles = { premium: { price: 500, category: 'premium-cat' } };
    await writeFile(join(cwd, '.sms-sendrc.json'), JSON.stringify(config));
    const run = await send(
      [
        join(FIXTURES, 'fields-defaults.csv'),
        '--profile',
        'premium',
        '--from',
        'FlagWins',
        '--custom',
        'source=flag',
        '--custom',
        'extra=1',
      ],
      cwd,
    );
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(0);
    expect(run.messages).toEqual([
      {
        Gateway: 1933,
        OriginatorAddress: 'FlagWins',
        DestinationAddress: 4741234567,
        Price: 500,
        MessageType: '11',
        ValidationPeriod: '20300615080000',
        MessageId: expect.stringMatching(/^[0-9a-f]{10}-1$/) as string,
        UserData: 'Defaults from the config file',
        Category: 'premium-cat',
        // --custom adds to the file's customData key by key.
        CustomData: { qos: 2, source: 'flag', extra: '1' },
        DeliveryReportUrl: signed('https://config.example/dlr?msgid=[$MSGID]'),
        ServiceCode: 'CFG-SC',
        ServiceDescription: 'Config service',
      },
    ]);
  });

  it('binary: MessageType "10" with hex UserData and a UserDataHeader', async ({ expect }) => {
    const run = await send(['fields-binary.csv']);
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(0);
    expect(run.messages).toEqual([
      {
        Gateway: 99700999,
        DestinationAddress: 4741234567,
        Price: 0,
        MessageType: '10',
        MessageId: expect.stringMatching(/^[0-9a-f]{10}-1$/) as string,
        UserDataHeader: '0605040B8423F0',
        UserData: '48656C6C6F',
      },
    ]);
  });

  it('the built-in defaults: Gateway 99700999, Price 0, MessageType "00", nothing else', async ({
    expect,
  }) => {
    const run = await send(['campaign-a.csv']);
    expect(run.code).toBe(0);
    expect(run.messages).toEqual(
      ['A one', 'A two'].map((text, i) => ({
        Gateway: 99700999,
        DestinationAddress: 4741000001 + i,
        Price: 0,
        MessageType: '00',
        MessageId: expect.stringMatching(new RegExp(`^[0-9a-f]{10}-${i + 1}$`)) as string,
        UserData: text,
      })),
    );
  });

  it('ValidationPeriod durations are made absolute (yyyymmddhhmmss, UTC)', async ({ expect }) => {
    // Row 1 takes --validity 2h; row 2 has its own ValidationPeriod cell, 30m.
    const before = Date.now();
    const run = await send(['fields-validity.csv', '--validity', '2h']);
    const after = Date.now();
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(0);
    const [first, second] = run.messages.map((m) => m.ValidationPeriod as string);
    const hours2 = 2 * 3600_000;
    const minutes30 = 30 * 60_000;
    expect(first).toMatch(/^\d{14}$/);
    expect(second).toMatch(/^\d{14}$/);
    expect(first! >= stamp(before + hours2) && first! <= stamp(after + hours2)).toBe(true);
    expect(second! >= stamp(before + minutes30) && second! <= stamp(after + minutes30)).toBe(true);
  });
});
