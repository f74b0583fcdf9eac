// Picks the reader for a file by its extension (or --input-format) and numbers records across files.
import { extname } from 'node:path';
import { UsageError } from '../shared/errors.js';
import { openCsv, type CsvBody, type CsvOptions } from './csv.js';
import { openJson, openNdjson, type NdjsonBody } from './json.js';
import type { InputFormat, OpenedInput } from './types.js';

const BY_EXTENSION: Record<string, InputFormat> = {
  '.csv': 'csv',
  '.tsv': 'csv',
  '.txt': 'csv',
  '.json': 'json',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
};

export function detectFormat(file: string, explicit?: string): InputFormat {
  if (explicit !== undefined) {
    if (explicit === 'csv' || explicit === 'json' || explicit === 'ndjson') return explicit;
    if (explicit === 'jsonl') return 'ndjson';
    throw new UsageError(`--input-format must be csv, json or ndjson (got "${explicit}")`);
  }
  const format = BY_EXTENSION[extname(file).toLowerCase()];
  if (file === '-')
    throw new UsageError('reading standard input (-) needs --input-format csv, json or ndjson');
  if (!format) {
    throw new UsageError(
      `${file}: cannot tell the format from the extension; use .csv, .json, .ndjson or --input-format`,
    );
  }
  return format;
}

/** One input of a campaign: where to read it, and the name to show for it ("-" for stdin). */
export interface InputFile {
  path: string;
  label: string;
}

/** The delimiter to use for a CSV input: the one given, a tab for .tsv, else detected (undefined). */
export function csvDelimiter(input: InputFile, csv: CsvOptions): string | undefined {
  return csv.delimiter ?? (extname(input.label).toLowerCase() === '.tsv' ? '\t' : undefined);
}

/**
 * Opens one input; with `body`, only a byte range of it (a worker's share of a large file), whose
 * line numbers count from the range's start, and, for CSV, with the header already read.
 */
export async function openInput(
  input: InputFile,
  format: InputFormat,
  csv: CsvOptions = {},
  body?: CsvBody | NdjsonBody,
): Promise<OpenedInput> {
  if (format === 'csv') {
    const delimiter = csvDelimiter(input, csv);
    return openCsv(input.path, {
      delimiter,
      label: input.label,
      body: body as CsvBody | undefined,
    });
  }
  return format === 'json'
    ? openJson(input.path, input.label)
    : openNdjson(input.path, input.label, body);
}
