// Conformance case files (protocol/conformance/step.schema.json): finding and parsing them.

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { parseExact } from '../exact-json.js';
import { describe, isObject } from './match.js';

const ACTIONS = ['send', 'sendRaw', 'sendHex', 'expect', 'expectNothing', 'expectClosed', 'open', 'close'];

/** Every `.jsonl` file under `directory`, recursively, sorted; none if it does not exist. */
export function findCases(directory) {
  let entries;
  try {
    entries = readdirSync(directory, { withFileTypes: true });
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .flatMap((entry) => {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) return findCases(full);
      return entry.isFile() && entry.name.endsWith('.jsonl') ? [full] : [];
    })
    .sort();
}

const CONNECTION_NAME = /^[A-Za-z0-9_-]+$/;
const HEADER_KEYS = ['case', 'description', 'scene', 'daemonArgs'];

/**
 * Parses a case file as step.schema.json describes it: its header and its
 * steps, each with its line number. Throws on anything malformed.
 * @param {string} text @param {string} [expectedName] the file's name without .jsonl
 */
export function parseCase(text, expectedName) {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) throw new Error('the case file is empty');
  const parsed = lines.map((line, index) => {
    try {
      return { line: index + 1, value: parseExact(line) };
    } catch (error) {
      throw new Error(`line ${index + 1}: not one JSON value per line (${error.message})`);
    }
  });
  const header = parsed[0].value;
  checkHeader(header, expectedName);
  const steps = parsed.slice(1).map(({ line, value }) => {
    try {
      return checkStep(value, line);
    } catch (error) {
      throw new Error(`line ${line}: ${error.message}`);
    }
  });
  return { header, steps };
}

function checkHeader(header, expectedName) {
  const bad = (why) => new Error(`line 1: bad header: ${why}`);
  if (!isObject(header)) throw bad('not an object');
  const unknown = Object.keys(header).filter((key) => !HEADER_KEYS.includes(key));
  if (unknown.length > 0) throw bad(`unknown member ${unknown.join(', ')}`);
  if (typeof header.case !== 'string' || !/^[a-z0-9][a-z0-9.-]*$/.test(header.case)) throw bad('"case" must be a name like parse-error');
  if (expectedName !== undefined && header.case !== expectedName) throw bad(`case ${header.case} is not the file's name ${expectedName}`);
  if (typeof header.description !== 'string' || header.description === '') throw bad('"description" is required');
  if (header.scene !== undefined && (typeof header.scene !== 'string' || !/^[A-Za-z0-9._-]+\.json$/.test(header.scene))) throw bad('"scene" must be a file name ending in .json');
  if (header.daemonArgs !== undefined && !(Array.isArray(header.daemonArgs) && header.daemonArgs.every((arg) => typeof arg === 'string'))) throw bad('"daemonArgs" must be an array of strings');
}

function checkStep(step, line) {
  if (!isObject(step)) throw new Error('a step is an object');
  const actions = ACTIONS.filter((action) => Object.hasOwn(step, action));
  if (actions.length !== 1) throw new Error(`a step has exactly one of ${ACTIONS.join(', ')}`);
  const [action] = actions;
  const argument = step[action];
  const allowed = action === 'open' || action === 'close' ? [action] : [action, 'conn'];
  const unknown = Object.keys(step).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw new Error(`unknown member ${unknown.join(', ')} in a ${action} step`);
  const conn = step.conn ?? 'a';
  if (typeof conn !== 'string' || !CONNECTION_NAME.test(conn)) throw new Error('"conn" must be a connection name');
  const valid = {
    send: () => true,
    expect: () => true,
    sendRaw: () => typeof argument === 'string',
    sendHex: () => typeof argument === 'string' && /^(?:[0-9A-Fa-f]{2})+$/.test(argument),
    expectNothing: () => typeof argument === 'bigint' && argument >= 0n && argument <= 5000n,
    expectClosed: () => argument === true,
    open: () => typeof argument === 'string' && CONNECTION_NAME.test(argument),
    close: () => typeof argument === 'string' && CONNECTION_NAME.test(argument),
  }[action];
  if (!valid()) throw new Error(`invalid ${action} argument ${describe(argument)}`);
  return { line, action, argument, conn };
}
