// Writing JSON for the daemon, which tells integers from doubles (SPEC §1.4).

/**
 * A number to be sent as a double. JavaScript has one number type, and
 * `JSON.stringify(1.0)` is `1`, which the daemon reads as an integer — so a
 * `@State` initialised with `1.0` would be an `int`. Wrap such values:
 * `double(1)` is written `1.0`. Non-integral numbers are doubles anyway.
 */
export class Double {
  /**
   * @param {number} value
   * @param {string} [text] the number as it was written, when it was read (`1.50`, `1e400`):
   *   written back as is, so that an id is echoed exactly; such a value may be out of range.
   */
  constructor(value, text) {
    if (typeof value !== 'number' || (!Number.isFinite(value) && text === undefined)) throw new TypeError(`double() takes a finite number, not ${value}`);
    this.value = value;
    if (text !== undefined) this.text = text;
    Object.freeze(this);
  }

  toString() {
    if (this.text !== undefined) return this.text;
    if (Object.is(this.value, -0)) return '-0.0';
    const text = String(this.value);
    return /[.e]/.test(text) ? text : `${text}.0`;
  }
}

/** @param {number} value @returns {Double} */
export function double(value) {
  return new Double(value);
}

/**
 * Compact JSON for the wire. Like `JSON.stringify`, but: a `Double` is written
 * as a double, a `bigint` as an integer (for 64-bit values beyond 2^53), and a
 * number that JSON cannot hold (NaN, ±Infinity) is a TypeError instead of a
 * silent `null`.
 * @param {unknown} value
 * @returns {string}
 */
export function stringify(value) {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`${value} cannot be sent as JSON`);
      return Object.is(value, -0) ? '0' : String(value);
    case 'object':
      if (value === null) return 'null';
      if (value instanceof Double) return value.toString();
      if (Array.isArray(value)) return `[${value.map((item) => (item === undefined || typeof item === 'function' ? 'null' : stringify(item))).join(',')}]`;
      if (typeof value.toJSON === 'function') return stringify(value.toJSON());
      return `{${Object.entries(value)
        .filter(([, member]) => member !== undefined && typeof member !== 'function')
        .map(([key, member]) => `${JSON.stringify(key)}:${stringify(member)}`)
        .join(',')}}`;
    default:
      throw new TypeError(`a ${typeof value} cannot be sent as JSON`);
  }
}
