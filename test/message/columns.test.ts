// planColumns: recipient and text detection order, case-insensitivity, --map, field and CustomData columns.
import { describe, expect, it } from 'vitest';
import { findColumn, planColumns } from '../../src/message/columns.js';

describe('planColumns: recipient column', () => {
  it.each([
    [['to', 'text'], 'to'],
    [['TO', 'text'], 'TO'],
    [['Phone', 'text'], 'Phone'],
    [['msisdn', 'text'], 'msisdn'],
    [['MOBILE', 'text'], 'MOBILE'],
    [['Number', 'text'], 'Number'],
    [['recipient', 'text'], 'recipient'],
    [['DestinationAddress', 'text'], 'DestinationAddress'],
    [['destinationAddress', 'text'], 'destinationAddress'],
    [[' phone ', 'text'], ' phone '],
    // The candidate order decides, not the column order.
    [['phone', 'to'], 'to'],
    [['recipient', 'number', 'mobile', 'msisdn', 'phone'], 'phone'],
    [['Mobile', 'MSISDN'], 'MSISDN'],
    [['DestinationAddress', 'recipient'], 'recipient'],
    [['name', 'text'], undefined],
    [['telephone', 'text'], undefined],
  ])('%j → %s', (columns, to) => {
    expect(planColumns(columns, {}, false).to).toBe(to);
  });
});

describe('planColumns: text column', () => {
  it.each([
    [['to', 'text'], 'text'],
    [['to', 'Message'], 'Message'],
    [['to', 'BODY'], 'BODY'],
    [['to', 'UserData'], 'UserData'],
    [['to', 'userData'], 'userData'],
    [['to', 'body', 'message'], 'message'],
    [['to', 'UserData', 'body', 'message', 'text'], 'text'],
    [['to', 'sms'], undefined],
  ])('%j → %s', (columns, text) => {
    expect(planColumns(columns, {}, false).text).toBe(text);
  });

  it('has no text column when a --text template is used', () => {
    const plan = planColumns(['to', 'text', 'name'], {}, true);
    expect(plan).toEqual({ to: 'to', text: undefined, fields: [], custom: [] });
  });

  it('never turns a UserData column into a field, even with a template', () => {
    expect(planColumns(['to', 'UserData'], {}, true)).toEqual({
      to: 'to',
      text: undefined,
      fields: [],
      custom: [],
    });
  });
});

describe('planColumns: --map', () => {
  it('takes the mapped recipient and text columns, ignoring case', () => {
    const plan = planColumns(
      ['to', 'Cell', 'text', 'Greeting'],
      { to: 'cell', text: 'GREETING' },
      false,
    );
    expect(plan.to).toBe('Cell');
    expect(plan.text).toBe('Greeting');
  });

  it('prefers the exact spelling when two columns differ only in case', () => {
    expect(planColumns(['cell', 'Cell'], { to: 'Cell' }, false).to).toBe('Cell');
    expect(planColumns(['cell', 'Cell'], { to: 'cell' }, false).to).toBe('cell');
  });

  it('does not fall back to detection when the mapped column is missing', () => {
    const plan = planColumns(['to', 'text'], { to: 'cell', text: 'greeting' }, false);
    expect(plan.to).toBeUndefined();
    expect(plan.text).toBeUndefined();
  });

  it('ignores a text mapping when a template is used', () => {
    expect(planColumns(['to', 'greeting'], { text: 'greeting' }, true).text).toBeUndefined();
  });
});

describe('planColumns: message-field columns', () => {
  it('maps PascalCase, camelCase and lower-case field names, in column order', () => {
    const columns = [
      'to',
      'text',
      'Gateway',
      'originatorAddress',
      'price',
      'MESSAGETYPE',
      'ValidationPeriod',
      'messageId',
      'UserDataHeader',
      'category',
      'CustomData',
      'deliveryReportUrl',
      'ServiceCode',
      'serviceDescription',
      'name',
    ];
    expect(planColumns(columns, {}, false)).toEqual({
      to: 'to',
      text: 'text',
      fields: [
        ['Gateway', 'Gateway'],
        ['originatorAddress', 'OriginatorAddress'],
        ['price', 'Price'],
        ['MESSAGETYPE', 'MessageType'],
        ['ValidationPeriod', 'ValidationPeriod'],
        ['messageId', 'MessageId'],
        ['UserDataHeader', 'UserDataHeader'],
        ['category', 'Category'],
        ['CustomData', 'CustomData'],
        ['deliveryReportUrl', 'DeliveryReportUrl'],
        ['ServiceCode', 'ServiceCode'],
        ['serviceDescription', 'ServiceDescription'],
      ],
      custom: [],
    });
  });

  it('never sets the destination or text twice from extra DestinationAddress / UserData columns', () => {
    const plan = planColumns(['to', 'text', 'DestinationAddress', 'UserData'], {}, false);
    expect(plan).toEqual({ to: 'to', text: 'text', fields: [], custom: [] });
  });

  it('leaves other columns as template variables only', () => {
    const plan = planColumns(['phone', 'name', 'originator_address', 'Gateway2'], {}, true);
    expect(plan.fields).toEqual([]);
    expect(plan.custom).toEqual([]);
  });
});

describe('planColumns: CustomData.<key> columns', () => {
  it.each([
    ['CustomData.qos', 'qos'],
    ['customdata.qos', 'qos'],
    ['CUSTOMDATA.Priority', 'Priority'],
    ['customData.campaign.name', 'campaign.name'],
    [' CustomData.qos ', 'qos'],
  ])('%j → key %j', (column, key) => {
    const plan = planColumns(['to', 'text', column], {}, false);
    expect(plan.custom).toEqual([[column, key]]);
    expect(plan.fields).toEqual([]);
  });

  it('ignores a CustomData. column without a key', () => {
    expect(planColumns(['to', 'text', 'CustomData.'], {}, false)).toEqual({
      to: 'to',
      text: 'text',
      fields: [],
      custom: [],
    });
  });

  it('keeps several custom keys in column order', () => {
    const plan = planColumns(['CustomData.b', 'to', 'CustomData.a', 'text'], {}, false);
    expect(plan.custom).toEqual([
      ['CustomData.b', 'b'],
      ['CustomData.a', 'a'],
    ]);
  });
});

describe('findColumn', () => {
  it.each([
    [['a', 'B'], 'a', 'a'],
    [['a', 'B'], 'b', 'B'],
    [['b', 'B'], 'B', 'B'],
    [['a', 'B'], 'c', undefined],
  ])('%j, %j → %s', (columns, name, found) => {
    expect(findColumn(columns, name)).toBe(found);
  });
});
