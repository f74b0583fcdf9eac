// The input settings of a campaign less those that only restate what sms-send would choose itself.
import { detectDelimiter, firstLine, openCsv } from '../input/csv.js';
import { csvDelimiter, detectFormat, type InputFile } from '../input/open.js';
import { planColumns, type Mapping } from './columns.js';

export interface InputSettings {
  inputFormat?: string;
  delimiter?: string;
  mapping: Mapping;
}

/**
 * `--input-format csv` on a .csv file, `--delimiter ,` on a comma file and `--map to=to` where
 * `to` is the column sms-send picks anyway change nothing that is sent, so they must not make
 * another campaign: that would send it all again. A setting is left out only when it is implied
 * for every input; anything unclear (an unreadable header, a JSON input's columns) keeps it.
 */
export async function impliedSettings(
  files: readonly InputFile[],
  given: InputSettings,
  useTemplate: boolean,
): Promise<InputSettings> {
  const { inputFormat, mapping: givenMapping } = given;
  if (
    inputFormat === undefined &&
    given.delimiter === undefined &&
    !givenMapping.to &&
    !givenMapping.text
  ) {
    return given;
  }
  const formats = files.map((file) => detectFormat(file.label, given.inputFormat));
  const byName = files.map((file) => formatByName(file.label));
  // Standard input has no name to go by; the bytes, which are hashed, decide what they parse as.
  const formatImplied = formats.every(
    (format, i) => byName[i] === undefined || byName[i] === format,
  );
  const csv = formats.every((format) => format === 'csv');
  let delimiter = given.delimiter;
  let mapping = given.mapping;
  if (csv && (delimiter !== undefined || mapping.to !== undefined || mapping.text !== undefined)) {
    try {
      const headers = await Promise.all(
        files.map(async (file) => {
          const chosen = csvDelimiter(file, {}) ?? detectDelimiter(await firstLine(file.path));
          const { columns } = await openCsv(file.path, {
            delimiter: given.delimiter ?? chosen,
            label: file.label,
            headerOnly: true,
          });
          return { chosen, columns };
        }),
      );
      if (headers.every((h) => h.chosen === delimiter)) delimiter = undefined;
      mapping = impliedMapping(
        mapping,
        headers.map((h) => h.columns),
        useTemplate,
      );
    } catch {
      // A header that cannot be read is for the validation pass to report, with its line.
    }
  }
  return {
    ...(formatImplied ? {} : { inputFormat: given.inputFormat }),
    ...(delimiter === undefined ? {} : { delimiter }),
    mapping,
  };
}

function formatByName(label: string): string | undefined {
  if (label === '-') return undefined;
  try {
    return detectFormat(label);
  } catch {
    return 'unknown';
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
