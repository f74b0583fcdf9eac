// Where a JSON record is malformed and why, in a person's words: V8's messages name a position in
// the record's own text (or none), which reads as a second, wrong line number beside the file's.
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

const REASONS: Partial<Record<ReturnType<typeof printParseErrorCode>, string>> = {
  InvalidSymbol: 'not a JSON value',
  InvalidNumberFormat: 'a number JSON does not allow',
  PropertyNameExpected: 'a field name in double quotes was expected',
  ValueExpected: 'a value was expected',
  ColonExpected: '":" was expected',
  CommaExpected: '"," was expected',
  CloseBraceExpected: '"}" was expected',
  CloseBracketExpected: '"]" was expected',
  EndOfFileExpected: 'text after the record',
  InvalidCommentToken: 'comments are not JSON',
  UnexpectedEndOfComment: 'comments are not JSON',
  UnexpectedEndOfString: 'a string is not closed (missing ")',
  UnexpectedEndOfNumber: 'a number is cut short',
  InvalidUnicode: 'a \\u escape is not valid',
  InvalidEscapeCharacter: 'an escape is not valid',
  InvalidCharacter: 'a control character (a tab, a line break) must be escaped in a string',
};

/** How far into the record the snippet of its text reaches. */
const SNIPPET = 24;

/**
 * The first mistake in a record's text that JSON.parse refused: how many lines into the text it
 * is, and what is wrong, with the text it is at. Undefined when none is found.
 */
export function jsonMistake(text: string): { lines: number; reason: string } | undefined {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  if (!first) return undefined;
  const before = text.slice(0, first.offset);
  const lines = before.split('\n').length - 1;
  const at = text.slice(first.offset, first.offset + SNIPPET).split('\n')[0]!;
  const reason = REASONS[printParseErrorCode(first.error)] ?? 'not valid JSON';
  return {
    lines,
    reason: at === '' ? `${reason} at the end` : `${reason} at ${JSON.stringify(at)}`,
  };
}
