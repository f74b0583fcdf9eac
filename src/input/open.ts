// Picks the reader for a file by its extension (or --input-format) and numbers records across files.
import { extname } from 'node:path';
import { UsageError } from '../errors.js';
import { openCsv, type CsvOptions } from './csv.js';
import { openJson, openNdjson } from './json.js';
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
  if (explicit) {
    if (explicit === 'csv' || explicit === 'json' || explicit === 'ndjson') return explicit;
    if (explicit === 'jsonl') return 'ndjson';
    throw new UsageError(`--input-format must be csv, json or ndjson (got "${explicit}")`);
  }
  const format = BY_EXTENSION[extname(file).toLowerCase()];
  if (!format) {
    throw new UsageError(
      `${file}: cannot tell the format from the extension; use .csv, .json, .ndjson or --input-format`,
    );
  }
  return format;
}

export async function openInput(
  file: string,
  format: InputFormat,
  csv: CsvOptions = {},
): Promise<OpenedInput> {
  if (format === 'csv') {
    const delimiter = csv.delimiter ?? (extname(file).toLowerCase() === '.tsv' ? '\t' : undefined);
    return openCsv(file, { delimiter });
  }
  return format === 'json' ? openJson(file) : openNdjson(file);
}
