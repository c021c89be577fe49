// Newline framing (SPEC §1.3): bytes in, complete lines out.

import { constants } from 'node:buffer';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a byte stream into lines. Chunks may end anywhere — inside a line or
 * inside a multi-byte UTF-8 character — and may hold many lines; a line is
 * decoded only once it is complete, so split characters are never mangled.
 * A `\r` before the `\n` is dropped. With `raw: true`, lines are handed over as
 * bytes, exactly as received (for checking what a peer wrote). Lines may be of any length up to
 * `maxLineBytes` (by default the longest string V8 can hold); a longer line is
 * reported through `onOverflow` and skipped, up to and including its `\n`,
 * instead of failing obscurely later.
 */
export class LineDecoder {
  /** @type {Buffer[]} */ #parts = [];
  #partBytes = 0;
  #skipping = false;
  #maxLineBytes;
  #onLine;
  #onOverflow;
  #raw;

  /**
   * @param {(line: any) => void} onLine called with each complete line, without its `\n`: a string, or a Buffer if `raw`
   * @param {{maxLineBytes?: number, onOverflow?: (bytes: number) => void, raw?: boolean}} [options]
   *   `onOverflow` gets the number of bytes seen when the line went over the limit.
   */
  constructor(onLine, { maxLineBytes = constants.MAX_STRING_LENGTH, onOverflow = () => {}, raw = false } = {}) {
    this.#onLine = onLine;
    this.#raw = raw;
    this.#maxLineBytes = maxLineBytes;
    this.#onOverflow = onOverflow;
  }

  /** Feeds one chunk; calls `onLine` for every line it completes, in order. */
  push(chunk) {
    let start = 0;
    let end;
    while ((end = chunk.indexOf(NEWLINE, start)) !== -1) {
      const piece = chunk.subarray(start, end);
      start = end + 1;
      if (this.#skipping) {
        this.#skipping = false;
        continue;
      }
      const lineBytes = this.#partBytes + piece.length;
      if (lineBytes > this.#maxLineBytes) {
        this.#drop();
        this.#onOverflow(lineBytes);
        continue;
      }
      let line = piece;
      if (this.#parts.length > 0) {
        this.#parts.push(piece);
        line = Buffer.concat(this.#parts, lineBytes);
        this.#drop();
      }
      if (this.#raw) {
        this.#onLine(line);
        continue;
      }
      const length = line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN ? line.length - 1 : line.length;
      this.#onLine(line.toString('utf8', 0, length));
    }
    if (start < chunk.length && !this.#skipping) {
      const rest = chunk.subarray(start);
      this.#parts.push(rest);
      this.#partBytes += rest.length;
      if (this.#partBytes > this.#maxLineBytes) {
        const bytes = this.#partBytes;
        this.#drop();
        this.#skipping = true;
        this.#onOverflow(bytes);
      }
    }
  }

  #drop() {
    this.#parts = [];
    this.#partBytes = 0;
  }
}
