// Streams the records out of a JSON array (or an object's "Messages" array) without holding the file.
// Hand-written because no maintained streaming parser reports the line each element starts on.

export interface JsonElement {
  text: string;
  line: number;
}

export class JsonShapeError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

type Mode = 'start' | 'array' | 'object' | 'done';

/**
 * Feed it decoded text chunk by chunk; it returns the complete top-level elements found so far.
 * Elements live at depth 1 of a top-level array, or depth 2 inside the top-level object's
 * "Messages" key. Other keys of that object are skipped.
 */
export class JsonArraySplitter {
  private mode: Mode = 'start';
  private depth = 0;
  private line = 1;
  private inString = false;
  private escaped = false;
  private elementDepth = 1;
  private capture: string[] | undefined;
  private captureLine = 0;
  private key = '';
  private keyCapture: string[] | undefined;
  private expectKey = false;
  private inMessages = false;
  private sawMessages = false;
  private captured = 0;

  /** `maxElement` bounds the characters of one record, so a broken file cannot exhaust memory. */
  constructor(private readonly maxElement = Number.POSITIVE_INFINITY) {}

  /** What the records array expects next: a record or its end, a comma or the end, a record. */
  private slot: 'first' | 'separator' | 'value' = 'first';

  // One pass per character of the input: split into calls, every character would pay for them.
  // eslint-disable-next-line max-lines-per-function -- a character-level state machine, kept whole
  push(chunk: string): JsonElement[] {
    const out: JsonElement[] = [];
    let captureFrom = 0;
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk.charCodeAt(i);
      if (ch === 10) this.line++;
      if (this.inString) {
        // JSON strings cannot hold a raw line break: the string was left open on the line before.
        if (ch === 10)
          throw new JsonShapeError(
            'malformed JSON: a string is not closed (missing ")',
            this.line - 1,
          );
        if (this.escaped) this.escaped = false;
        else if (ch === 92) this.escaped = true;
        else if (ch === 34) {
          this.inString = false;
          if (this.keyCapture) {
            this.key = this.keyCapture.join('') + chunk.slice(captureFrom, i);
            this.keyCapture = undefined;
          }
        }
        continue;
      }
      if (ch === 32 || ch === 10 || ch === 13 || ch === 9) continue;
      // A byte-order mark may open the document.
      if (ch === 0xfeff && this.mode === 'start') continue;
      if (this.mode === 'start') {
        if (ch === 91) {
          this.mode = 'array';
          this.depth = 1;
          this.elementDepth = 1;
          continue;
        }
        if (ch === 123) {
          this.mode = 'object';
          this.depth = 1;
          this.elementDepth = 2;
          this.expectKey = true;
          continue;
        }
        throw new JsonShapeError(
          'expected a JSON array of records, or an object with a "Messages" array',
          this.line,
        );
      }
      if (this.mode === 'done') {
        throw new JsonShapeError('unexpected text after the end of the JSON document', this.line);
      }
      const atElementLevel =
        this.depth === this.elementDepth && (this.mode === 'array' || this.inMessages);
      if (atElementLevel && this.capture === undefined) {
        if (ch === 44) {
          if (this.slot !== 'separator') throw new JsonShapeError('unexpected comma', this.line);
          this.slot = 'value';
          continue;
        }
        if (ch === 93) {
          if (this.slot === 'value') throw new JsonShapeError('comma before "]"', this.line);
        } else {
          if (ch !== 123) throw new JsonShapeError('each record must be a JSON object', this.line);
          if (this.slot === 'separator') {
            throw new JsonShapeError('missing comma between records', this.line);
          }
          this.capture = [];
          this.captured = 0;
          this.captureLine = this.line;
          captureFrom = i;
        }
      }
      if (ch === 34) {
        this.inString = true;
        if (this.mode === 'object' && this.depth === 1 && this.expectKey) {
          this.keyCapture = [];
          captureFrom = i + 1;
        }
        continue;
      }
      if (ch === 123 || ch === 91) {
        if (this.mode === 'object' && this.depth === 1 && !this.expectKey) {
          this.inMessages = this.key.toLowerCase() === 'messages' && ch === 91;
          if (this.inMessages) {
            this.sawMessages = true;
            this.slot = 'first';
          }
        }
        this.depth++;
        continue;
      }
      if (ch === 125 || ch === 93) {
        this.depth--;
        if (this.capture !== undefined && this.depth === this.elementDepth) {
          out.push({
            text: this.capture.join('') + chunk.slice(captureFrom, i + 1),
            line: this.captureLine,
          });
          this.capture = undefined;
          this.slot = 'separator';
        }
        if (this.mode === 'object' && this.depth === 1) this.inMessages = false;
        if (this.depth === 0) this.mode = 'done';
        continue;
      }
      if (this.mode === 'object' && this.depth === 1) {
        if (ch === 58) this.expectKey = false;
        else if (ch === 44) this.expectKey = true;
      }
    }
    if (this.capture !== undefined) {
      const rest = chunk.slice(captureFrom);
      this.captured += rest.length;
      if (this.captured > this.maxElement) {
        throw new JsonShapeError(
          `a record is longer than ${this.maxElement} characters`,
          this.captureLine,
        );
      }
      this.capture.push(rest);
    }
    if (this.keyCapture !== undefined) this.keyCapture.push(chunk.slice(captureFrom));
    return out;
  }

  /** Call at the end of input: throws when the document was cut short or had no records array. */
  end(): void {
    if (this.mode === 'start')
      throw new JsonShapeError('is empty: expected a JSON array of records', this.line);
    if (this.mode !== 'done' || this.inString) {
      throw new JsonShapeError('the JSON document ends before it is complete', this.line);
    }
    if (this.elementDepth === 2 && !this.sawMessages) {
      throw new JsonShapeError('the JSON object has no "Messages" array', 1);
    }
  }
}
