// The cost settings through the config pipeline: flag forms, calling codes as the plan looks them up,
// and --max-cost without a price refused as the slip it is.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagLayer } from '../../src/cli/gateway-settings.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { UsageError } from '../../src/shared/errors.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.remove();
});

/** Settings from commander's flag values (as send's action gets them) and an optional config file. */
async function settings(flags: Record<string, unknown>, config?: Record<string, unknown>) {
  let configPath: string | undefined;
  if (config) {
    configPath = join(dir.path, `config-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(configPath, JSON.stringify(config));
  }
  return resolveSettings({ cwd: dir.path, env: {}, flags: flagLayer(flags), configPath });
}

describe('cost settings', () => {
  it('are off and unset by default', async () => {
    const s = await settings({});
    expect([s.gsmNormalize, s.maxSegments, s.pricePerSegment, s.currency, s.maxCost]).toEqual([
      false,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it.each<[string, unknown]>([
    ['0.5', 0.5],
    ['0', 0],
    ['47=0.35,default=0.5', { '47': 0.35, default: 0.5 }],
    ['+47=0.35, 46=0.4, default=0.5', { '47': 0.35, '46': 0.4, default: 0.5 }],
  ])('--price-per-segment %s', async (flag, price) => {
    expect((await settings({ pricePerSegment: flag })).pricePerSegment).toEqual(price);
  });

  it.each([
    ['cheap', 'must be a price such as 0.5'],
    ['47=0.35', 'needs a "default" price'],
    ['NO=0.35,default=0.5', '"NO" is not a calling code'],
    ['47=cheap,default=0.5', 'the price for "47" must be a number, 0 or more'],
  ])('--price-per-segment %s is a usage error: %s', async (flag, reason) => {
    const error = await settings({ pricePerSegment: flag }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).code).toBe('usage');
    // Text the schema refused is shown as typed; prices by code as the schema read them.
    const shown = flag.includes('=') ? '' : ` "${flag}"`;
    expect((error as UsageError).message).toContain(`--price-per-segment${shown}: ${reason}`);
  });

  it('takes the rest from flags and the config file; calling codes lose their +, currencies are upper case', async () => {
    const s = await settings(
      { gsmNormalize: true, maxSegments: '3', currency: 'nok', maxCost: '250.5' },
      { pricePerSegment: { '+47': 0.35, default: 0.5 } },
    );
    expect(s).toMatchObject({
      gsmNormalize: true,
      maxSegments: 3,
      pricePerSegment: { '47': 0.35, default: 0.5 },
      currency: 'NOK',
      maxCost: 250.5,
    });
  });

  it('--max-cost without a price per segment is a usage error naming the missing setting', async () => {
    const error = await settings({ maxCost: '10' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ code: 'usage', exitCode: 2 });
    expect((error as UsageError).message).toBe(
      'the settings have 1 problem:\n' +
        '  --max-cost: needs a price per segment to estimate the cost: set pricePerSegment in the config file, or pass --price-per-segment\n' +
        'Nothing was sent.',
    );
  });

  it('maxCost in a config file without a price is a config error', async () => {
    const error = await settings({}, { maxCost: 10 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'config', exitCode: 2 });
    expect((error as UsageError).message).toContain('maxCost (');
  });
});
