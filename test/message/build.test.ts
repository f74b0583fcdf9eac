// buildMessage: one record → one RestSmsMessageReq, or the problems that stop it, each naming its field.
import { describe, expect, it } from 'vitest';
import type { MessageDefaults, MessageSettings } from '../../src/message/build.js';
import type { RestSmsMessageReq } from '../../src/gateway/types.js';
import type { FieldValue, InputRecord } from '../../src/input/types.js';
import {
  buildMessage,
  type BuildContext,
  type Built,
  type RecordProblem,
} from '../../src/message/build.js';
import { planColumns, type Mapping } from '../../src/message/columns.js';
import { compileTemplate } from '../../src/message/template.js';

const KEY = 'abcdef0123';
const NOW = new Date(Date.UTC(2025, 5, 1, 12, 0, 0)); // 2025-06-01 12:00:00 UTC
const TO = '+47 412 34 567';
const MSISDN = 4741234567;

interface Options {
  row?: number;
  defaults?: Partial<MessageDefaults>;
  country?: string;
  template?: string;
  mapping?: Mapping;
  gsmNormalize?: boolean;
  maxSegments?: number;
  strict?: boolean;
}

function build(fields: Record<string, FieldValue>, options: Options = {}): Built {
  const record: InputRecord = { row: options.row ?? 1, file: 'campaign.csv', line: 2, fields };
  const plan = planColumns(
    Object.keys(fields),
    options.mapping ?? {},
    options.template !== undefined,
  );
  const settings: MessageSettings = {
    defaults: { gateway: 99700999, price: 0, customData: {}, ...options.defaults },
  };
  if (options.country !== undefined) settings.country = options.country;
  if (options.gsmNormalize !== undefined) settings.gsmNormalize = options.gsmNormalize;
  if (options.maxSegments !== undefined) settings.maxSegments = options.maxSegments;
  const ctx: BuildContext = { settings, campaignKey: KEY, now: NOW };
  if (options.strict !== undefined) ctx.strict = options.strict;
  if (options.template !== undefined) ctx.template = compileTemplate(options.template);
  return buildMessage(record, plan, ctx);
}

function message(built: Built): RestSmsMessageReq {
  if (!built.ok) throw new Error(`expected a message, got ${JSON.stringify(built.problems)}`);
  return built.message;
}

function problems(built: Built): RecordProblem[] {
  if (built.ok) throw new Error(`expected problems, got ${JSON.stringify(built.message)}`);
  return built.problems;
}

describe('buildMessage: defaults', () => {
  it('builds the minimal message with Gateway 99700999, Price 0, MessageType "00" and a generated id', () => {
    const built = build({ to: TO, text: 'Hello' });
    expect(built).toEqual({
      ok: true,
      to: '4741234567',
      message: {
        Gateway: 99700999,
        DestinationAddress: MSISDN,
        Price: 0,
        MessageType: '00',
        MessageId: 'abcdef0123-1',
        UserData: 'Hello',
      },
      text: { encoding: 'GSM-7', characters: 5, units: 5, segments: 1 },
      textColumn: 'text',
    });
  });

  it('sends numbers as JSON numbers, in the contract field order', () => {
    const m = message(build({ to: TO, text: 'Hello' }));
    expect(Object.keys(m)).toEqual([
      'Gateway',
      'DestinationAddress',
      'Price',
      'MessageType',
      'MessageId',
      'UserData',
    ]);
    expect(typeof m.Gateway).toBe('number');
    expect(typeof m.DestinationAddress).toBe('number');
    expect(typeof m.Price).toBe('number');
  });

  it('sets no OriginatorAddress unless one is given', () => {
    expect('OriginatorAddress' in message(build({ to: TO, text: 'Hi' }))).toBe(false);
    expect(
      message(build({ to: TO, text: 'Hi' }, { defaults: { originatorAddress: 'Intele' } }))
        .OriginatorAddress,
    ).toBe('Intele');
  });

  it('uses every message default when the record sets nothing', () => {
    const m = message(
      build(
        { to: TO, text: 'Hi' },
        {
          defaults: {
            gateway: 1933,
            price: 300,
            originatorAddress: '1933',
            messageType: '11',
            validationPeriod: '2h',
            category: 'billing',
            deliveryReportUrl: 'https://example.com/dr?id=[$MSGID]',
            customData: { qos: 1 },
            serviceCode: 'SC-1',
            serviceDescription: 'Weather service',
          },
        },
      ),
    );
    expect(m).toEqual({
      Gateway: 1933,
      OriginatorAddress: '1933',
      DestinationAddress: MSISDN,
      Price: 300,
      MessageType: '11',
      ValidationPeriod: '20250601140000',
      MessageId: 'abcdef0123-1',
      UserData: 'Hi',
      Category: 'billing',
      CustomData: { qos: 1 },
      DeliveryReportUrl: 'https://example.com/dr?id=[$MSGID]',
      ServiceCode: 'SC-1',
      ServiceDescription: 'Weather service',
    });
  });
});

describe('buildMessage: MessageType', () => {
  it.each([
    ['1 character', 'a', '00'],
    ['exactly 160 characters', 'a'.repeat(160), '00'],
    ['161 characters', 'a'.repeat(161), '11'],
    ['1024 characters', 'a'.repeat(1024), '11'],
    ['160 Norwegian letters', 'æøå'.repeat(53) + 'Æ', '00'],
    ['161 Norwegian letters', 'æøå'.repeat(53) + 'Æø', '11'],
    ['161 Cyrillic letters', 'Ж'.repeat(161), '11'],
    // Over 160 UTF-16 units is "11" whatever the count: an emoji is two units, as .NET counts.
    ['159 letters and an emoji', 'a'.repeat(159) + '😀', '11'],
    // Otherwise the tool's own segment count decides: GSM-7 160 septets (extension characters
    // such as € count two), UCS-2 70 units, in one segment.
    ['160 septets', 'a'.repeat(160), '00'],
    ['161 septets', 'a'.repeat(161), '11'],
    ['80 euro signs = 160 septets', '€'.repeat(80), '00'],
    ['81 euro signs = 162 septets', '€'.repeat(81), '11'],
    ['158 letters and a € = 160 septets', 'a'.repeat(158) + '€', '00'],
    ['159 letters and a € = 161 septets', 'a'.repeat(159) + '€', '11'],
    ['157 letters and {} = 161 septets', 'a'.repeat(157) + '{}', '11'],
    ['70 Cyrillic letters = 70 UCS-2 units', 'Ж'.repeat(70), '00'],
    ['71 Cyrillic letters = 71 UCS-2 units', 'Ж'.repeat(71), '11'],
    ['100 Cyrillic letters', 'Ж'.repeat(100), '11'],
    ['68 letters and an emoji = 70 UCS-2 units', 'a'.repeat(68) + '😀', '00'],
    ['69 letters and an emoji = 71 UCS-2 units', 'a'.repeat(69) + '😀', '11'],
    ['158 letters and an emoji (UCS-2, 3 segments)', 'a'.repeat(158) + '😀', '11'],
  ])('%s → %s', (_label, text, type) => {
    expect(message(build({ to: TO, text })).MessageType).toBe(type);
  });

  it('keeps the record’s own MessageType for a short text', () => {
    expect(message(build({ to: TO, text: 'a'.repeat(20), MessageType: '11' })).MessageType).toBe(
      '11',
    );
  });

  it('keeps the configured MessageType', () => {
    const built = build({ to: TO, text: 'a'.repeat(20) }, { defaults: { messageType: '11' } });
    expect(message(built).MessageType).toBe('11');
  });

  it('refuses MessageType "00" on a text over 160 characters (the gateway rejects it)', () => {
    const built = build({ to: TO, text: 'a'.repeat(161), MessageType: '00' });
    expect(built.ok).toBe(false);
    expect(built.ok ? [] : built.problems).toEqual([
      {
        field: 'text',
        reason:
          'is 161 characters, but MessageType "00" allows 160; use "11" (or leave MessageType unset)',
      },
    ]);
  });

  it.each([
    ['81 euro signs', '€'.repeat(81), 'needs 2 GSM-7 segments'],
    ['100 Cyrillic letters', 'Ж'.repeat(100), 'needs 2 UCS-2 segments'],
  ])('refuses MessageType "00" on %s: more than one segment', (_label, text, need) => {
    for (const built of [
      build({ to: TO, text, MessageType: '00' }),
      build({ to: TO, text }, { defaults: { messageType: '00' } }),
    ]) {
      expect(problems(built)).toEqual([
        {
          field: 'text',
          reason: `${need}, but MessageType "00" is a single message; use "11" (or leave MessageType unset)`,
        },
      ]);
    }
  });

  it('keeps an explicit "11" on a single-segment text', () => {
    expect(
      message(build({ to: TO, text: 'Ж' }, { defaults: { messageType: '11' } })).MessageType,
    ).toBe('11');
  });

  it('lets the record override the configured MessageType', () => {
    const built = build(
      { to: TO, text: 'short', MessageType: '11' },
      { defaults: { messageType: '00' } },
    );
    expect(message(built).MessageType).toBe('11');
  });

  it('reports a MessageType that is not two characters', () => {
    expect(problems(build({ to: TO, text: 'Hi', MessageType: '1' }))).toEqual([
      { field: 'MessageType', reason: 'must be two characters such as "00", "10" or "11"' },
    ]);
  });
});

describe('buildMessage: every field can be set by a column', () => {
  it.each<[string, FieldValue, Partial<RestSmsMessageReq>]>([
    ['Gateway', '1933', { Gateway: 1933 }],
    ['gateway', 1933, { Gateway: 1933 }],
    ['OriginatorAddress', 'Intele', { OriginatorAddress: 'Intele' }],
    ['originatorAddress', '+4741234567', { OriginatorAddress: '+4741234567' }],
    ['Price', '0', { Price: 0 }],
    ['MessageType', '11', { MessageType: '11' }],
    ['ValidationPeriod', '20250601130000', { ValidationPeriod: '20250601130000' }],
    ['validationPeriod', '2h', { ValidationPeriod: '20250601140000' }],
    ['ValidationPeriod', '30m', { ValidationPeriod: '20250601123000' }],
    ['MessageId', 'order-4711', { MessageId: 'order-4711' }],
    ['messageid', 4711, { MessageId: '4711' }],
    ['UserDataHeader', '050003CC0201', { UserDataHeader: '050003CC0201' }],
    ['Category', 'marketing', { Category: 'marketing' }],
    ['CustomData', '{"qos":1,"tag":"x"}', { CustomData: { qos: 1, tag: 'x' } }],
    ['customData', { qos: 2 }, { CustomData: { qos: 2 } }],
    ['CustomData.qos', '1', { CustomData: { qos: '1' } }],
    ['customdata.Tag', 'spring', { CustomData: { Tag: 'spring' } }],
    [
      'DeliveryReportUrl',
      'https://example.com/dr?id=[$MSGID]&s=[$STATUS]',
      { DeliveryReportUrl: 'https://example.com/dr?id=[$MSGID]&s=[$STATUS]' },
    ],
    ['ServiceCode', 'SC-1', { ServiceCode: 'SC-1' }],
    ['ServiceDescription', 'Weather', { ServiceDescription: 'Weather' }],
  ])('column %s = %j', (column, value, expected) => {
    const m = message(build({ to: TO, text: 'Hi', [column]: value }));
    expect(m).toEqual({
      Gateway: 99700999,
      DestinationAddress: MSISDN,
      Price: 0,
      MessageType: '00',
      MessageId: 'abcdef0123-1',
      UserData: 'Hi',
      ...expected,
    });
  });

  it('sets a premium price on a short-number gateway', () => {
    const m = message(build({ to: TO, text: 'Hi', Gateway: '1933', Price: '500' }));
    expect(m.Gateway).toBe(1933);
    expect(m.Price).toBe(500);
  });

  it('lets the record override the configured defaults', () => {
    const m = message(
      build(
        { to: TO, text: 'Hi', OriginatorAddress: 'Shop', Category: 'b' },
        { defaults: { originatorAddress: 'Intele', category: 'a' } },
      ),
    );
    expect(m.OriginatorAddress).toBe('Shop');
    expect(m.Category).toBe('b');
  });

  it('ignores empty and null cells and keeps the defaults', () => {
    const m = message(
      build(
        { to: TO, text: 'Hi', Gateway: '', OriginatorAddress: null, 'CustomData.qos': '' },
        { defaults: { originatorAddress: 'Intele' } },
      ),
    );
    expect(m.Gateway).toBe(99700999);
    expect(m.OriginatorAddress).toBe('Intele');
    expect('CustomData' in m).toBe(false);
  });

  it('merges custom data: defaults, then the CustomData column, then CustomData.<key> columns', () => {
    const m = message(
      build(
        { to: TO, text: 'Hi', CustomData: '{"qos":2,"a":"col"}', 'CustomData.qos': '3' },
        { defaults: { customData: { qos: 1, b: 'default' } } },
      ),
    );
    expect(m.CustomData).toEqual({ qos: '3', a: 'col', b: 'default' });
  });

  it('takes the destination from a DestinationAddress column and the text from UserData', () => {
    const m = message(build({ DestinationAddress: 4741234567, UserData: 'Hei' }));
    expect(m.DestinationAddress).toBe(MSISDN);
    expect(m.UserData).toBe('Hei');
  });

  it('uses the --map columns', () => {
    const built = build(
      { Cell: '41234567', Greeting: 'Hei' },
      { mapping: { to: 'cell', text: 'greeting' }, country: 'NO' },
    );
    expect(message(built).DestinationAddress).toBe(MSISDN);
    expect(message(built).UserData).toBe('Hei');
  });
});

describe('buildMessage: recipients and ids', () => {
  it.each([
    ['+47 412 34 567', undefined],
    ['004741234567', undefined],
    ['4741234567', undefined],
    ['41234567', 'NO'],
  ])('%j (country %s) → 4741234567', (to, country) => {
    const built = build({ to, text: 'Hi' }, country === undefined ? {} : { country });
    expect(built.to).toBe('4741234567');
    expect(message(built).DestinationAddress).toBe(MSISDN);
  });

  it('generates a deterministic MessageId from the campaign key and row', () => {
    const first = message(build({ to: TO, text: 'Hi' }, { row: 37 }));
    const again = message(build({ to: TO, text: 'Hi' }, { row: 37 }));
    const other = message(build({ to: TO, text: 'Hi' }, { row: 38 }));
    expect(first.MessageId).toBe('abcdef0123-11');
    expect(again.MessageId).toBe('abcdef0123-11');
    expect(other.MessageId).toBe('abcdef0123-12');
  });

  it('returns the generated MessageId and the raw recipient with the problems', () => {
    const built = build({ to: '+47 123', text: 'Hi' }, { row: 5 });
    expect(built).toEqual({
      ok: false,
      to: '+47 123',
      messageId: 'abcdef0123-5',
      problems: [{ field: 'to', reason: '"+47 123" not a mobile number (too short)' }],
      text: { encoding: 'GSM-7', characters: 2, units: 2, segments: 1 },
    });
  });

  it('returns the record’s own MessageId with the problems', () => {
    const built = build({ to: '', text: 'Hi', MessageId: 'mine-1' });
    expect(built.ok).toBe(false);
    expect(!built.ok && built.messageId).toBe('mine-1');
  });
});

describe('buildMessage: templates', () => {
  it('fills a --text template from the record', () => {
    const m = message(
      build(
        { to: TO, name: 'Kari', code: 4711 },
        { template: 'Hei {{name}}, koden er {{ code }}.' },
      ),
    );
    expect(m.UserData).toBe('Hei Kari, koden er 4711.');
  });

  it('looks placeholders up ignoring case', () => {
    const m = message(build({ to: TO, Name: 'Kari' }, { template: 'Hei {{NAME}}' }));
    expect(m.UserData).toBe('Hei Kari');
  });

  it('ignores a text column when a template is given', () => {
    const m = message(build({ to: TO, text: 'from column' }, { template: 'from template' }));
    expect(m.UserData).toBe('from template');
  });

  it('reports every placeholder that has no column, naming it', () => {
    expect(
      problems(build({ to: TO, name: 'Kari' }, { template: '{{greeting}} {{name}} {{code}}' })),
    ).toEqual([
      { field: '{{greeting}}', reason: 'the record has no field "greeting"' },
      { field: '{{code}}', reason: 'the record has no field "code"' },
    ]);
  });

  it('fills a text column that itself holds placeholders from the same record', () => {
    const m = message(
      build({ to: TO, text: 'Hei {{navn}}, du skylder {{ beløp }} kr.', navn: 'Ola', beløp: 250 }),
    );
    expect(m.UserData).toBe('Hei Ola, du skylder 250 kr.');
  });

  it('reports a placeholder in a text column that names no column', () => {
    expect(problems(build({ to: TO, text: 'Hei {{navn}}' }))).toEqual([
      { field: '{{navn}}', reason: 'the record has no field "navn"' },
    ]);
  });

  // Before \{{ there was no way to send braces: data "Hi {{ to }}" went out filled, and
  // "{{7*7}}" was refused as a placeholder with no column.
  it.each<[string, Record<string, FieldValue>, string | undefined, string]>([
    ['a text column', { to: TO, text: 'Hi \\{{ to }}' }, undefined, 'Hi {{ to }}'],
    ['a text column', { to: TO, text: '\\{{7*7}}' }, undefined, '{{7*7}}'],
    ['a text column', { to: TO, text: '\\{{x}} {{n}}', n: 'Ola' }, undefined, '{{x}} Ola'],
    ['a template', { to: TO, n: 'Ola' }, '\\{{ n }} is {{ n }}', '{{ n }} is Ola'],
    ['a template', { to: TO }, 'Use \\{{7*7}}', 'Use {{7*7}}'],
  ])('sends \\{{ in %s as a literal {{', (_label, fields, template, sent) => {
    const options = template === undefined ? {} : { template };
    expect(message(build(fields, options)).UserData).toBe(sent);
  });

  it('decides MessageType on the filled text, not on the template', () => {
    const m = message(build({ to: TO, long: 'a'.repeat(161) }, { template: '{{long}}' }));
    expect(m.UserData).toHaveLength(161);
    expect(m.MessageType).toBe('11');
  });

  it('reports a filled template that ends up empty', () => {
    expect(problems(build({ to: TO, name: '' }, { template: '{{name}}' }))).toEqual([
      { field: 'text', reason: 'is empty' },
    ]);
  });
});

describe('buildMessage: problems name the field', () => {
  it.each<[string, Record<string, FieldValue>, RecordProblem[]]>([
    [
      'no recipient column',
      { name: 'x', text: 'Hi' },
      [{ field: 'to', reason: 'no recipient column' }],
    ],
    [
      'a fixed-line recipient',
      { phone: '+47 22 12 34 56', text: 'Hi' },
      [{ field: 'phone', reason: '"+47 22 12 34 56" is a fixed-line number, not a mobile number' }],
    ],
    ['empty recipient', { to: '', text: 'Hi' }, [{ field: 'to', reason: '"" empty' }]],
    ['empty text', { to: TO, text: '' }, [{ field: 'text', reason: 'is empty' }]],
    ['empty Message column', { to: TO, Message: '' }, [{ field: 'Message', reason: 'is empty' }]],
    ['no text column at all', { to: TO }, [{ field: 'text', reason: 'is empty' }]],
    [
      'text over 1024',
      { to: TO, body: 'a'.repeat(1025) },
      [{ field: 'body', reason: 'is 1025 characters (at most 1024)' }],
    ],
    [
      'binary text that is not hex',
      { to: TO, text: 'Hello', MessageType: '10' },
      [
        {
          field: 'text',
          reason: 'must be hex (pairs of 0-9, A-F) when MessageType is "10" (binary)',
        },
      ],
    ],
    [
      'Gateway not a number',
      { to: TO, text: 'Hi', Gateway: 'abc', Price: '5' },
      [{ field: 'Gateway', reason: 'must be a positive whole number such as 99700999' }],
    ],
    [
      'Price not a number',
      { to: TO, text: 'Hi', Price: '1.5' },
      [{ field: 'Price', reason: 'must be a whole number of øre, 0 or more' }],
    ],
    [
      'premium price on 99700999',
      { to: TO, text: 'Hi', Price: '100' },
      [
        {
          field: 'Price',
          reason: 'Price 100 needs a short-number gateway (premium is not possible on 99700999)',
        },
      ],
    ],
    [
      'premium price on a long gateway other than 99700999',
      { to: TO, text: 'Hi', Gateway: '200000', Price: '500' },
      [
        {
          field: 'Price',
          reason: 'Price 500 needs a short-number gateway (premium is not possible on 200000)',
        },
      ],
    ],
    [
      'long alphanumeric sender',
      { to: TO, text: 'Hi', OriginatorAddress: 'ABCDEFGHIJKL' },
      [
        {
          field: 'OriginatorAddress',
          reason: 'alphanumeric sender "ABCDEFGHIJKL" is 12 characters (at most 11)',
        },
      ],
    ],
    [
      'MessageId too long',
      { to: TO, text: 'Hi', MessageId: 'x'.repeat(33) },
      [{ field: 'MessageId', reason: 'is 33 characters (at most 32)' }],
    ],
    [
      'MessageId with a space',
      { to: TO, text: 'Hi', MessageId: 'a b' },
      [{ field: 'MessageId', reason: 'must be printable ASCII without spaces' }],
    ],
    [
      'UserDataHeader not hex',
      { to: TO, text: 'Hi', UserDataHeader: 'xyz' },
      [{ field: 'UserDataHeader', reason: 'must be hex (pairs of 0-9, A-F)' }],
    ],
    [
      'Category too long',
      { to: TO, text: 'Hi', Category: 'c'.repeat(33) },
      [{ field: 'Category', reason: 'is 33 characters (at most 32)' }],
    ],
    [
      'DeliveryReportUrl not http',
      { to: TO, text: 'Hi', DeliveryReportUrl: 'ftp://example.com/dr' },
      [{ field: 'DeliveryReportUrl', reason: 'must be an absolute http(s) URL' }],
    ],
    [
      'ServiceCode too long',
      { to: TO, text: 'Hi', ServiceCode: 's'.repeat(129) },
      [{ field: 'ServiceCode', reason: 'is 129 characters (at most 128)' }],
    ],
    [
      'ServiceDescription too long',
      { to: TO, text: 'Hi', ServiceDescription: 'd'.repeat(513) },
      [{ field: 'ServiceDescription', reason: 'is 513 characters (at most 512)' }],
    ],
    [
      'ValidationPeriod not a real date',
      { to: TO, text: 'Hi', ValidationPeriod: '20250230120000' },
      [
        {
          field: 'ValidationPeriod',
          reason: '20250230120000 is not a real date and time (yyyymmddhhmmss)',
        },
      ],
    ],
    [
      'CustomData not an object',
      { to: TO, text: 'Hi', customData: '[1,2]' },
      [{ field: 'customData', reason: 'must be a JSON object such as {"qos": 1}' }],
    ],
    [
      'CustomData not JSON',
      { to: TO, text: 'Hi', CustomData: 'qos=1' },
      [{ field: 'CustomData', reason: 'must be a JSON object such as {"qos": 1}' }],
    ],
  ])('%s', (_label, fields, expected) => {
    expect(problems(build(fields))).toEqual(expected);
  });

  it('reports a premium price against a configured default gateway and price', () => {
    expect(problems(build({ to: TO, text: 'Hi' }, { defaults: { price: 200 } }))).toEqual([
      {
        field: 'Price',
        reason: 'Price 200 needs a short-number gateway (premium is not possible on 99700999)',
      },
    ]);
  });

  it('reports every problem of a record at once, recipient first', () => {
    const found = problems(
      build({
        to: 'abc',
        text: '',
        Gateway: '0',
        MessageId: 'x'.repeat(40),
        ValidationPeriod: 'soon',
      }),
    );
    expect(found.map((p) => p.field)).toEqual([
      'to',
      'text',
      'Gateway',
      'MessageId',
      'ValidationPeriod',
    ]);
    expect(found[0]).toEqual({ field: 'to', reason: '"abc" not a phone number' });
  });
});

describe('buildMessage: nested values', () => {
  /** {"a":{"a":…1…}} with `depth` objects. */
  function nest(depth: number): Record<string, unknown> {
    let value: Record<string, unknown> = { a: 1 };
    for (let i = 1; i < depth; i++) value = { a: value };
    return value;
  }
  const TOO_DEEP = 'is nested more than 32 levels deep (at most 32)';

  // A CustomData 5,000 levels deep passed the dry run and then crashed the send in JSON.stringify.
  it.each<[string, () => Record<string, FieldValue>, RecordProblem[]]>([
    [
      'CustomData 5,000 levels deep',
      () => ({ to: TO, text: 'x', CustomData: nest(5000) }),
      [{ field: 'CustomData', reason: TOO_DEEP }],
    ],
    [
      'a CustomData cell holding JSON 5,000 levels deep',
      () => ({ to: TO, text: 'x', CustomData: '{"a":'.repeat(5000) + '1' + '}'.repeat(5000) }),
      [{ field: 'CustomData', reason: TOO_DEEP }],
    ],
    [
      'a CustomData.<key> value 5,000 levels deep',
      () => ({ to: TO, text: 'x', 'CustomData.deep': nest(5000) }),
      [{ field: 'CustomData.deep', reason: TOO_DEEP }],
    ],
    [
      'a template variable 5,000 levels deep',
      () => ({ to: TO, text: 'Hi {{ meta }}', meta: nest(5000) }),
      [{ field: 'meta', reason: TOO_DEEP }],
    ],
    [
      'an unused column 5,000 levels deep',
      () => ({ to: TO, text: 'x', extra: [nest(5000)] }),
      [{ field: 'extra', reason: TOO_DEEP }],
    ],
    [
      'a recipient 5,000 levels deep',
      () => ({ to: nest(5000), text: 'x' }),
      [
        { field: 'to', reason: TOO_DEEP },
        { field: 'to', reason: '"" empty' },
      ],
    ],
    [
      'CustomData of 5,000 characters',
      () => ({ to: TO, text: 'x', CustomData: { note: 'x'.repeat(4990) } }),
      [{ field: 'CustomData', reason: 'is 5001 characters as JSON (at most 4096)' }],
    ],
  ])('refuses %s', (_label, make, expected) => {
    expect(problems(build(make()))).toEqual(expected);
  });

  it('counts the configured CustomData into the size limit', () => {
    const built = build(
      { to: TO, text: 'x', 'CustomData.b': 'y'.repeat(2000) },
      { defaults: { customData: { a: 'x'.repeat(2100) } } },
    );
    expect(problems(built)).toEqual([
      { field: 'CustomData', reason: 'is 4115 characters as JSON (at most 4096)' },
    ]);
  });

  it('accepts CustomData 32 levels deep', () => {
    const m = message(build({ to: TO, text: 'x', CustomData: nest(32) }));
    expect(m.CustomData).toEqual(nest(32));
  });
});

describe('buildMessage: --gsm-normalize', () => {
  // 100 characters with one typographic apostrophe: two UCS-2 segments, one GSM-7 segment.
  const LONG = `It’s your turn: ${'x'.repeat(84)}`;

  it('without it, the text is sent byte for byte, UCS-2', () => {
    const built = build({ to: TO, text: LONG });
    expect(message(built).UserData).toBe(LONG);
    expect(message(built).MessageType).toBe('11');
    expect(built.ok && built.text).toMatchObject({ encoding: 'UCS-2', segments: 2 });
    expect(built.ok && built.normalized).toBeUndefined();
  });

  it('replaces after the template is filled, so the text sent, its type and its count agree', () => {
    const built = build(
      { to: TO, name: 'O’Brien' },
      { template: `Hi {{name}}, ${LONG}`, gsmNormalize: true },
    );
    const m = message(built);
    expect(m.UserData).toBe(`Hi O'Brien, It's your turn: ${'x'.repeat(84)}`);
    expect(m.MessageType).toBe('00');
    expect(built.ok && built.text).toMatchObject({ encoding: 'GSM-7', segments: 1 });
    expect(built.ok && built.normalized).toEqual({ replaced: 2, segmentsSaved: 1 });
  });

  it('leaves a text that stays UCS-2 as it is (an emoji besides the apostrophe)', () => {
    const built = build({ to: TO, text: 'It’s here 🎉' }, { gsmNormalize: true });
    expect(message(built).UserData).toBe('It’s here 🎉');
    expect(built.ok && built.normalized).toBeUndefined();
  });

  it('leaves GSM-7 text alone, Nordic letters included', () => {
    const built = build({ to: TO, text: 'Blåbær på Ørsta, Ærø og Åsane' }, { gsmNormalize: true });
    expect(message(built).UserData).toBe('Blåbær på Ørsta, Ærø og Åsane');
    expect(built.ok && built.normalized).toBeUndefined();
  });
});

describe('buildMessage: --max-segments', () => {
  it.each([
    // [text, max, problem]
    ['a'.repeat(160), 1, undefined],
    ['a'.repeat(161), 1, 'needs 2 segments, more than --max-segments 1'],
    ['a'.repeat(459), 3, undefined],
    ['a'.repeat(460), 3, 'needs 4 segments, more than --max-segments 3'],
    ['ж'.repeat(70), 1, undefined],
    ['ж'.repeat(71), 1, 'needs 2 segments, more than --max-segments 1'],
  ])('%#: a text over the limit is invalid, naming its count', (text, max, problem) => {
    const built = build({ to: TO, text }, { maxSegments: max });
    if (problem === undefined) expect(built.ok).toBe(true);
    else expect(problems(built)).toEqual([{ field: 'text', reason: problem }]);
  });

  it('names the text column, and counts the text as sent (after --gsm-normalize)', () => {
    const long = `It’s ${'x'.repeat(80)}`;
    expect(problems(build({ to: TO, message: long }, { maxSegments: 1 }))).toEqual([
      { field: 'message', reason: 'needs 2 segments, more than --max-segments 1' },
    ]);
    expect(build({ to: TO, message: long }, { maxSegments: 1, gsmNormalize: true }).ok).toBe(true);
  });
});

describe("buildMessage: a text column's words in single braces, judged as --text's are", () => {
  const refused = (name: string, column: string) =>
    `the text has {${name}}, which would go to its recipient as written: did you mean {{${column}}}? (to send the braces as written, write \\{${name}})`;
  const warned = (name: string) =>
    `the text has {${name}}, which its recipient gets as written (a column's value is {{column}}; write \\{${name}} to say the braces are meant)`;
  it.each([
    // text, strict → the text sent, or the problems; the word the plan warns of.
    ['Hi {name} your code', false, { problems: [refused('name', 'name')] }],
    ['Hi {nmae}', true, { problems: [refused('nmae', 'name')] }],
    ['Code {ABC} now', false, { text: 'Code {ABC} now', braced: 'ABC' }],
    ['Code {ABC} now', true, { problems: [`${warned('ABC')} (--strict)`] }],
    ['Hi \\{name}, braces meant', true, { text: 'Hi {name}, braces meant' }],
    ['Hi {{name}} and \\{{x}}', true, { text: 'Hi Ola and {{x}}' }],
    ['JSON {"a": 1} and {} stay', true, { text: 'JSON {"a": 1} and {} stay' }],
    ['no braces', true, { text: 'no braces' }],
  ] as const)('%j (--strict %s) → %j', (text, strict, expected) => {
    const built = build({ to: TO, name: 'Ola', text }, { strict });
    if ('problems' in expected) {
      expect(problems(built)).toEqual(
        expected.problems.map((reason) => ({ field: 'text', reason })),
      );
      return;
    }
    expect(message(built).UserData).toBe(expected.text);
    expect(built.ok && built.braced).toBe('braced' in expected ? expected.braced : undefined);
  });

  it('leaves a --text template to the file-level check: the filled text is not judged again', () => {
    const built = build({ to: TO, name: '{name}' }, { template: 'Hi {{name}}', strict: true });
    expect(message(built).UserData).toBe('Hi {name}');
  });
});
