// JSON (array or {"Messages": [...]}) and NDJSON readers: streamed, each record with its line.
import { createReadStream } from 'node:fs';
import { MAX_RECORD_BYTES } from './csv.js';
import { InputError } from './errors.js';
import { StrictUtf8Decoder } from './utf8.js';
import { JsonArraySplitter, JsonShapeError } from './json-split.js';

const MAX_RECORD_CHARS = MAX_RECORD_BYTES;
import type { FieldValue, OpenedInput, RawRecord } from './types.js';

export function openJson(path: string, file: string = path): OpenedInput {
  async function* records(): AsyncGenerator<RawRecord> {
    const splitter = new JsonArraySplitter(MAX_RECORD_CHARS);
    const decoder = new StrictUtf8Decoder(file);
    const source = createReadStream(path).on('error', (error) => decoder.destroy(error));
    try {
      for await (const chunk of source.pipe(decoder)) {
        for (const element of splitter.push(chunk as string)) {
          yield { file, line: element.line, fields: parseRecord(element.text, file, element.line) };
        }
      }
      splitter.end();
    } catch (error) {
      throw toInputError(error, file);
    }
  }
  return { file, format: 'json', records: records() };
}

export function openNdjson(path: string, file: string = path): OpenedInput {
  async function* records(): AsyncGenerator<RawRecord> {
    const decoder = new StrictUtf8Decoder(file);
    const source = createReadStream(path).on('error', (error) => decoder.destroy(error));
    let line = 0;
    let partial = '';
    try {
      for await (const chunk of source.pipe(decoder)) {
        const lines = (partial + (chunk as string)).split('\n');
        partial = lines.pop()!;
        if (partial.length > MAX_RECORD_CHARS) {
          throw new InputError(
            file,
            line + 1,
            `a line is longer than ${MAX_RECORD_CHARS} characters`,
          );
        }
        for (const text of lines) {
          line++;
          const record = ndjsonRecord(text, file, line);
          if (record) yield record;
        }
      }
      if (partial !== '') {
        line++;
        const record = ndjsonRecord(partial, file, line);
        if (record) yield record;
      }
    } catch (error) {
      throw toInputError(error, file);
    }
  }
  return { file, format: 'ndjson', records: records() };
}

function ndjsonRecord(text: string, file: string, line: number): RawRecord | undefined {
  const trimmed = (line === 1 ? text.replace(/^\uFEFF/, '') : text).trim();
  if (trimmed === '') return undefined;
  if (trimmed.length > MAX_RECORD_CHARS) {
    throw new InputError(file, line, `the line is longer than ${MAX_RECORD_CHARS} characters`);
  }
  return { file, line, fields: parseRecord(trimmed, file, line) };
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
  if (error instanceof InputError) return error;
  if (error instanceof JsonShapeError) return new InputError(file, error.line, error.message);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new InputError(file, undefined, 'does not exist');
  if (code === 'EISDIR') return new InputError(file, undefined, 'is a directory, not a file');
  if (code === 'EACCES')
    return new InputError(file, undefined, 'is not readable (permission denied)');
  return error;
}
