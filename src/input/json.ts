// JSON (array or {"Messages": [...]}) and NDJSON readers: streamed, each record with its line.
import { createReadStream } from 'node:fs';
import { readUtf8, type ByteRange } from './bytes.js';
import { MAX_RECORD_BYTES } from './csv.js';
import { InputError } from './errors.js';
import { jsonMistake } from './json-error.js';
import { StrictUtf8Decoder } from './utf8.js';
import { JsonArraySplitter, JsonShapeError } from './json-split.js';
import type { FieldValue, InputRecord, OpenedInput } from './types.js';

const MAX_RECORD_CHARS = MAX_RECORD_BYTES;

export function openJson(path: string, file: string = path): OpenedInput {
  async function* records(): AsyncGenerator<InputRecord[]> {
    const splitter = new JsonArraySplitter(MAX_RECORD_CHARS);
    const decoder = new StrictUtf8Decoder(file);
    const source = createReadStream(path).on('error', (error) => decoder.destroy(error));
    try {
      for await (const chunk of source.pipe(decoder)) {
        const batch = splitter.push(chunk as string).map((element) => ({
          row: 0,
          file,
          line: element.line,
          fields: parseRecord(element.text, file, element.line),
        }));
        if (batch.length > 0) yield batch;
      }
      splitter.end();
    } catch (error) {
      throw toInputError(error, file);
    }
  }
  return { file, format: 'json', records: records() };
}

/** NDJSON from a byte range that starts on a line (`line`), for a worker reading part of a file. */
export interface NdjsonBody extends ByteRange {
  line: number;
}

export function openNdjson(path: string, file: string = path, body?: NdjsonBody): OpenedInput {
  let line = (body?.line ?? 1) - 1;
  async function* records(): AsyncGenerator<InputRecord[]> {
    let partial = '';
    try {
      for await (const chunk of readUtf8(path, file, body)) {
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop()!;
        if (partial.length > MAX_RECORD_CHARS) {
          throw new InputError(
            file,
            line + 1,
            `the line is longer than ${MAX_RECORD_CHARS} characters`,
          );
        }
        const batch: InputRecord[] = [];
        for (const text of lines) {
          line++;
          const record = ndjsonRecord(text, file, line);
          if (record) batch.push(record);
        }
        if (batch.length > 0) yield batch;
      }
      if (partial !== '') {
        line++;
        const record = ndjsonRecord(partial, file, line);
        if (record) yield [record];
      }
    } catch (error) {
      throw toInputError(error, file);
    }
  }
  return { file, format: 'ndjson', records: records(), lineAfter: () => line + 1 };
}

function ndjsonRecord(text: string, file: string, line: number): InputRecord | undefined {
  const trimmed = (line === 1 ? text.replace(/^\uFEFF/, '') : text).trim();
  if (trimmed === '') return undefined;
  if (trimmed.length > MAX_RECORD_CHARS) {
    throw new InputError(file, line, `the line is longer than ${MAX_RECORD_CHARS} characters`);
  }
  return { row: 0, file, line, fields: parseRecord(trimmed, file, line) };
}

function parseRecord(text: string, file: string, line: number): Record<string, FieldValue> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const mistake = jsonMistake(text);
    if (!mistake) throw new InputError(file, line, `malformed JSON: ${(error as Error).message}`);
    throw new InputError(file, line + mistake.lines, `malformed JSON: ${mistake.reason}`);
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
