// A JSON parser that keeps integers and doubles apart, as the daemon does (SPEC §1.4).
// Used by the conformance runner, which must tell `1` from `1.0`; the client itself uses JSON.parse.

import { Double } from './json.js';

/**
 * Parses strict JSON (RFC 8259). An integer (no fraction, no exponent, not
 * `-0`) that fits 64 bits becomes a `bigint`, any other number a `Double` that
 * keeps the number's text (of any magnitude: a request id may be `1e400`, and
 * is echoed as written, SPEC §2.1); objects have a null
 * prototype, so a member named `__proto__` is an ordinary member. A duplicate
 * member name is an error. `stringify` from json.js writes such values back.
 * @param {string} text
 */
export function parseExact(text) {
  const parser = new Parser(text);
  parser.space();
  const value = parser.value(1);
  parser.space();
  if (parser.at < text.length) parser.fail('more than one JSON value');
  return value;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const MAX_DEPTH = 512;

class Parser {
  constructor(text) {
    this.text = text;
    this.at = 0;
  }

  fail(reason) {
    throw new SyntaxError(`Invalid JSON at character ${this.at}: ${reason}`);
  }

  space() {
    while (this.at < this.text.length && ' \t\n\r'.includes(this.text[this.at])) this.at++;
  }

  literal(word, value) {
    if (!this.text.startsWith(word, this.at)) this.fail('unexpected character');
    this.at += word.length;
    return value;
  }

  value(depth) {
    if (depth > MAX_DEPTH) this.fail('nested too deeply');
    switch (this.text[this.at]) {
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      case undefined:
        return this.fail('unexpected end');
      default:
        return this.number();
    }
  }

  number() {
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    if (match === null) this.fail('unexpected character');
    this.at = NUMBER.lastIndex;
    const [token, fraction, exponent] = match;
    if (fraction === undefined && exponent === undefined && token !== '-0') {
      const integer = BigInt(token);
      if (integer >= -(2n ** 63n) && integer < 2n ** 63n) return integer;
    }
    return new Double(Number(token), token);
  }

  string() {
    STRING.lastIndex = this.at;
    const match = STRING.exec(this.text);
    if (match === null) this.fail('invalid string');
    this.at = STRING.lastIndex;
    return JSON.parse(match[0]);
  }

  array(depth) {
    const items = [];
    this.at++;
    this.space();
    if (this.text[this.at] === ']') {
      this.at++;
      return items;
    }
    for (;;) {
      this.space();
      items.push(this.value(depth + 1));
      this.space();
      const next = this.text[this.at++];
      if (next === ']') return items;
      if (next !== ',') this.fail('expected , or ]');
    }
  }

  object(depth) {
    const members = Object.create(null);
    this.at++;
    this.space();
    if (this.text[this.at] === '}') {
      this.at++;
      return members;
    }
    for (;;) {
      this.space();
      if (this.text[this.at] !== '"') this.fail('expected a member name');
      const name = this.string();
      if (Object.hasOwn(members, name)) this.fail(`duplicate member ${JSON.stringify(name)}`);
      this.space();
      if (this.text[this.at++] !== ':') this.fail('expected :');
      this.space();
      members[name] = this.value(depth + 1);
      this.space();
      const next = this.text[this.at++];
      if (next === '}') return members;
      if (next !== ',') this.fail('expected , or }');
    }
  }
}
