// Decodes UTF-8 strictly: invalid bytes are an input error naming the line, never silent U+FFFD.
import { Transform, type TransformCallback } from 'node:stream';
import { TextDecoder } from 'node:util';
import { InputError } from './errors.js';

/** Bytes in, strings out; fails on the first invalid sequence with the line it is on. */
export class StrictUtf8Decoder extends Transform {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  private line = 1;

  constructor(private readonly file: string) {
    super({ readableObjectMode: false, decodeStrings: true, encoding: 'utf8' });
  }

  /** Nothing decoded yet: a byte-order mark would be at the start of this chunk. */
  private first = true;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.decode(chunk, true, callback);
  }

  override _flush(callback: TransformCallback): void {
    this.decode(new Uint8Array(), false, callback);
  }

  private decode(bytes: Uint8Array, stream: boolean, callback: TransformCallback): void {
    let text: string;
    const first = this.first;
    this.first = false;
    try {
      text = this.decoder.decode(bytes, { stream });
    } catch {
      const reason = notUtf8(first ? bytes : undefined);
      callback(new InputError(this.file, this.badLine(bytes), reason));
      return;
    }
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) this.line++;
    callback(null, text);
  }

  /** The line of the first invalid byte in this chunk, found by decoding up to it. */
  private badLine(bytes: Uint8Array): number {
    let line = this.line;
    const probe = new TextDecoder('utf-8', { fatal: true });
    for (let i = 0; i < bytes.length; i++) {
      try {
        probe.decode(bytes.subarray(i, i + 1), { stream: true });
      } catch {
        break;
      }
      if (bytes[i] === 10) line++;
    }
    return line;
  }
}

/**
 * Why a file is not UTF-8, in words that say what to do: a UTF-16 file (as some spreadsheets
 * save "Unicode text") is named as one by its byte-order mark. `start`: the file's first bytes.
 */
export function notUtf8(start: Uint8Array | undefined): string {
  const utf16 =
    start !== undefined &&
    start.length >= 2 &&
    ((start[0] === 0xff && start[1] === 0xfe) || (start[0] === 0xfe && start[1] === 0xff));
  return utf16
    ? 'is UTF-16, not UTF-8 (save it as UTF-8: in a spreadsheet, "CSV UTF-8")'
    : 'is not valid UTF-8 (save it as UTF-8)';
}
