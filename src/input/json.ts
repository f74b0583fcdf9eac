// JSON (array or {"Messages": [...]}) and NDJSON readers: streamed, each record with its line.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { TextDecoder } from 'node:util';
import { InputError } from './errors.js';
import { JsonArraySplitter, JsonShapeError } from './json-split.js';
import type { FieldValue, OpenedInput, RawRecord } from './types.js';

export function openJson(file: string): OpenedInput {
  async function* records(): AsyncGenerator<RawRecord> {
    const splitter = new JsonArraySplitter();
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
    try {
      for await (const chunk of createReadStream(file)) {
        for (const element of splitter.push(decode(decoder, chunk as Buffer, file, false))) {
          yield { file, line: element.line, fields: parseRecord(element.text, file, element.line) };
        }
      }
      for (const element of splitter.push(decode(decoder, new Uint8Array(), file, true))) {
        yield { file, line: element.line, fields: parseRecord(element.text, file, element.line) };
      }
      splitter.end();
    } catch (error) {
      throw toInputError(error, file);
    }
  }
  return { file, format: 'json', records: records() };
}

export function openNdjson(file: string): OpenedInput {
  async function* records(): AsyncGenerator<RawRecord> {
    const stream = createReadStream(file, { encoding: 'utf8' });
    let line = 0;
    try {
      for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
        line++;
        const trimmed = line === 1 ? text.replace(/^\uFEFF/, '').trim() : text.trim();
        if (trimmed === '') continue;
        if (trimmed.includes('\uFFFD')) throw new InputError(file, line, 'is not valid UTF-8');
        yield { file, line, fields: parseRecord(trimmed, file, line) };
      }
    } catch (error) {
      throw toInputError(error, file);
    }
  }
  return { file, format: 'ndjson', records: records() };
}

function decode(decoder: TextDecoder, bytes: Uint8Array, file: string, last: boolean): string {
  try {
    return decoder.decode(bytes, { stream: !last });
  } catch {
    throw new InputError(file, undefined, 'is not valid UTF-8');
  }
}

function parseRecord(text: string, file: string, line: number): Record<string, FieldValue> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError(file, line, `malformed JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputError(file, line, 'each record must be a JSON object');
  }
  return value as Record<string, FieldValue>;
}

function toInputError(error: unknown, file: string): unknown {
  if (error instanceof JsonShapeError) return new InputError(file, error.line, error.message);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new InputError(file, undefined, 'does not exist');
  if (code === 'EISDIR') return new InputError(file, undefined, 'is a directory, not a file');
  if (code === 'EACCES')
    return new InputError(file, undefined, 'is not readable (permission denied)');
  return error;
}
