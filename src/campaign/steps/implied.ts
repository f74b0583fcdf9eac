// What a campaign's ID is made of besides its bytes: how they are read, never what the files are called.
import { detectDelimiter, firstLine, openCsv } from '../../input/csv.js';
import { csvDelimiter, detectFormat, type InputFile } from '../../input/open.js';
import { planColumns, type Mapping } from '../../message/columns.js';

export interface InputSettings {
  inputFormat?: string;
  delimiter?: string;
  mapping: Mapping;
}

/**
 * The input settings as the campaign's ID counts them. `--input-format csv` on a .csv file or on
 * standard input, `--delimiter ,` on a file whose header is split by commas, and `--map to=to`
 * where `to` is the column picked anyway change nothing that is sent, so they must not make
 * another campaign: that would send it all again. So the ID holds how the bytes were read, judged
 * by the bytes alone, never by a file's name:
 * - no format: the bytes, which are hashed, parse as one format only;
 * - a delimiter only when some CSV file was split by another than its header suggests;
 * - of the mapping, only columns auto-detection would not have picked.
 * Anything unclear (an unreadable header, a JSON input's columns) keeps the setting as given.
 */
export async function identitySettings(
  files: readonly InputFile[],
  given: InputSettings,
  useTemplate: boolean,
): Promise<InputSettings> {
  const { delimiter, mapping } = given;
  const named = files.some((file) => csvDelimiter(file, {}) !== undefined);
  if (delimiter === undefined && !named && !mapping.to && !mapping.text) return { mapping };
  const formats = files.map((file) => detectFormat(file.label, given.inputFormat));
  if (!formats.every((format) => format === 'csv')) return { delimiter, mapping };
  try {
    const headers = await Promise.all(
      files.map(async (file) => {
        const suggested = detectDelimiter(await firstLine(file.path));
        const used = csvDelimiter(file, { delimiter }) ?? suggested;
        const { columns } = await openCsv(file.path, {
          delimiter: used,
          label: file.label,
          headerOnly: true,
        });
        return { used, suggested, columns };
      }),
    );
    const other = headers.find((h) => h.used !== h.suggested);
    return {
      ...(other ? { delimiter: other.used } : {}),
      mapping: impliedMapping(
        mapping,
        headers.map((h) => h.columns),
        useTemplate,
      ),
    };
  } catch {
    // A header that cannot be read is for the validation pass to report, with its line.
    return { delimiter, mapping };
  }
}

/** The mapping less each column it names that every header would have had picked anyway. */
function impliedMapping(
  mapping: Mapping,
  headers: readonly (readonly string[])[],
  useTemplate: boolean,
): Mapping {
  const kept: Mapping = {};
  for (const key of ['to', 'text'] as const) {
    const name = mapping[key];
    if (name === undefined) continue;
    // With a template the text column is never read, whatever --map says.
    if (key === 'text' && useTemplate) continue;
    const implied = headers.every((columns) => {
      const mapped = planColumns(columns, { [key]: name }, useTemplate)[key];
      return mapped !== undefined && mapped === planColumns(columns, {}, useTemplate)[key];
    });
    if (!implied) kept[key] = name;
  }
  return kept;
}
