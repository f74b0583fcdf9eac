// Parsers for flag values; they throw commander's InvalidArgumentError so usage errors read alike.
import { InvalidArgumentError } from 'commander';

export function positiveInt(value: string): number {
  if (!/^[1-9][0-9]*$/.test(value))
    throw new InvalidArgumentError('must be a whole number, 1 or more');
  return Number(value);
}

export function nonNegativeInt(value: string): number {
  if (!/^[0-9]+$/.test(value)) throw new InvalidArgumentError('must be a whole number, 0 or more');
  return Number(value);
}

/** A TCP port: 0 (a free one) to 65535. */
export function port(value: string): number {
  const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!(n <= 65535)) throw new InvalidArgumentError('must be a port, 0 to 65535');
  return n;
}

/** `--custom k=v`, repeatable: collects into one object. */
export function keyValue(
  value: string,
  previous: Record<string, string> = {},
): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`"${value}" must be key=value`);
  return { ...previous, [value.slice(0, at).trim()]: value.slice(at + 1) };
}

/** `--suppress FILE`, repeatable: collects into one list. */
export function listOf(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `--map to=COL,text=COL`, repeatable. */
export function mapping(
  value: string,
  previous: Record<string, string> = {},
): Record<string, string> {
  const out = { ...previous };
  for (const part of value.split(',')) {
    const at = part.indexOf('=');
    const key = part.slice(0, at).trim().toLowerCase();
    if (at <= 0 || (key !== 'to' && key !== 'text')) {
      throw new InvalidArgumentError(`"${part}" must be to=COLUMN or text=COLUMN`);
    }
    out[key] = part.slice(at + 1).trim();
  }
  return out;
}
