// The pattern language of `expect` steps (protocol/conformance/README.md, "Patterns"), on
// values read by exact-json.js: integers are bigints, doubles `Double`s. As the README
// defines it, numbers compare by value (1 matches 1.0) and `$int` is any integral number.

import { Double, stringify } from '../json.js';

/**
 * Matches a received value against a pattern; returns null, or where and why
 * they differ. `captures` holds the captures of earlier steps; the ones this
 * pattern makes are added only when the whole value matched. A malformed
 * pattern (a bug in the case) throws.
 * @param {unknown} pattern @param {unknown} actual @param {Map<string, unknown>} captures
 */
export function match(pattern, actual, captures) {
  const made = new Map();
  const mismatch = matchValue(pattern, actual, captures, made, '$');
  if (mismatch === null) for (const [name, value] of made) captures.set(name, value);
  return mismatch;
}

function matchValue(pattern, actual, captures, made, where) {
  const differ = (why) => `${where}: ${why}, got ${describe(actual)}`;
  if (typeof pattern === 'string') {
    if (pattern.startsWith('$$')) return actual === pattern.slice(1) ? null : differ(`expected ${JSON.stringify(pattern.slice(1))}`);
    if (pattern.startsWith('$')) return matcher(pattern, actual, captures, made, differ);
    return actual === pattern ? null : differ(`expected ${JSON.stringify(pattern)}`);
  }
  if (Array.isArray(pattern)) {
    if (!Array.isArray(actual)) return differ('expected an array');
    if (actual.length !== pattern.length) return differ(`expected ${pattern.length} elements`);
    for (let index = 0; index < pattern.length; index++) {
      const mismatch = matchValue(pattern[index], actual[index], captures, made, `${where}[${index}]`);
      if (mismatch) return mismatch;
    }
    return null;
  }
  if (isObject(pattern)) {
    const partial = pattern.$partial ?? false;
    if (typeof partial !== 'boolean') throw new Error(`${where}: "$partial" must be true or false`);
    if (!isObject(actual)) return differ('expected an object');
    const keys = Object.keys(pattern).filter((key) => key !== '$partial');
    const missing = keys.filter((key) => !Object.hasOwn(actual, key));
    if (missing.length > 0) return differ(`missing ${missing.map((key) => JSON.stringify(key)).join(', ')}`);
    if (!partial) {
      const extra = Object.keys(actual).filter((key) => !keys.includes(key));
      if (extra.length > 0) return differ(`unexpected ${extra.map((key) => JSON.stringify(key)).join(', ')}`);
    }
    for (const key of keys) {
      const mismatch = matchValue(pattern[key], actual[key], captures, made, `${where}.${key}`);
      if (mismatch) return mismatch;
    }
    return null;
  }
  return equal(pattern, actual) ? null : differ(`expected ${describe(pattern)}`);
}

const CAPTURE = /^\$capture:([A-Za-z_][A-Za-z0-9_]*)$/;
const REF = /^\$ref:([A-Za-z_][A-Za-z0-9_]*)(?:\+([0-9]+))?$/;

function matcher(pattern, actual, captures, made, differ) {
  switch (pattern) {
    case '$any':
      return null;
    case '$int':
      return isInteger(actual) ? null : differ('expected an integer');
    case '$number':
      return isNumber(actual) ? null : differ('expected a number');
    case '$string':
      return typeof actual === 'string' ? null : differ('expected a string');
    case '$bool':
      return typeof actual === 'boolean' ? null : differ('expected a boolean');
    case '$null':
      return actual === null ? null : differ('expected null');
    case '$object':
      return isObject(actual) ? null : differ('expected an object');
    case '$array':
      return Array.isArray(actual) ? null : differ('expected an array');
  }
  if (pattern.startsWith('$text:')) {
    const text = pattern.slice('$text:'.length);
    return isNumber(actual) && stringify(actual) === text ? null : differ(`expected a number written ${text}`);
  }
  if (pattern.startsWith('$contains:')) {
    const text = pattern.slice('$contains:'.length);
    return typeof actual === 'string' && actual.includes(text) ? null : differ(`expected a string containing ${JSON.stringify(text)}`);
  }
  const capture = CAPTURE.exec(pattern);
  if (capture !== null) {
    if (made.has(capture[1])) throw new Error(`${pattern} captures ${capture[1]} twice in one pattern`);
    made.set(capture[1], actual);
    return null;
  }
  const ref = REF.exec(pattern);
  if (ref !== null) {
    const [, name, offset] = ref;
    if (!captures.has(name)) throw new Error(`${pattern} refers to nothing captured in an earlier step`);
    let expected = captures.get(name);
    if (offset !== undefined) {
      if (!isInteger(expected)) return differ(`${pattern} needs an integer capture, ${name} is ${describe(expected)}`);
      expected = BigInt(typeof expected === 'bigint' ? expected : expected.value) + BigInt(offset);
    }
    return equal(expected, actual) ? null : differ(`expected ${describe(expected)} (${pattern})`);
  }
  throw new Error(`unknown matcher ${pattern} (write a literal "$..." string as "$$...")`);
}

/** Equality of parsed JSON values, numbers by value (`1` equals `1.0`), never `true` and `1`. */
function equal(a, b) {
  if (isNumber(a) || isNumber(b)) {
    if (!isNumber(a) || !isNumber(b)) return false;
    return typeof a === 'bigint' && typeof b === 'bigint' ? a === b : numeric(a) === numeric(b);
  }
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, index) => equal(item, b[index]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && equal(a[key], b[key]));
  }
  return a === b;
}

function isNumber(value) {
  return typeof value === 'bigint' || value instanceof Double;
}

function numeric(value) {
  return typeof value === 'bigint' ? Number(value) : value.value;
}

function isInteger(value) {
  return typeof value === 'bigint' || (value instanceof Double && Number.isInteger(value.value));
}

export function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Double);
}

export function describe(value) {
  if (value === undefined) return 'nothing';
  const text = stringify(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
