#!/usr/bin/env node
// The Node reader of the protocol conformance suite: runs every case under
// protocol/conformance/cases/**/*.jsonl against a fresh milieud per case.
//
//   node conformance.js [--milieud PATH] [CASE.jsonl | DIRECTORY ...]
//
// A case file is JSON Lines. Line 1: {"case", "description", "scene"?, "daemonArgs"?};
// "scene" names a file in protocol/conformance/scenes/. Every further line is one step,
// on connection "a" (opened at start) unless "conn" names another:
//   {"send": value}        compact JSON and "\n"     {"sendRaw": text}   exactly that text
//   {"sendHex": hex}       exactly those bytes        {"expect": pattern} the next message matches
//   {"expectNothing": ms}  nothing arrives in ms      {"expectClosed": true} the daemon closes it
//   {"open": name} / {"close": name}
// Patterns: objects need the same keys unless "$partial": true; arrays the same length; strings
// starting with "$" are matchers ($any $int $number $string $bool $null $object $array
// $capture:NAME $ref:NAME $ref:NAME+K $contains:TEXT $text:TEXT); "$$x" is the literal "$x";
// numbers compare by value, and $text:TEXT matches a number written exactly TEXT. In a "send",
// a string "$ref:NAME" is replaced by the captured value. Captures count once the whole message matched; a $ref refers to a capture
// of an earlier step. A message no step expected, still unread when a connection is closed,
// fails the case. protocol/conformance/README.md is the definition; this runner reads it as
// the Python runner does, and also reads every line strictly (duplicate members, \r, UTF-8)
// and checks that no secure value leaves the daemon (SPEC §7). It sends doubles as doubles.

import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Daemon, findMilieud } from './lib/daemon.js';
import { Double, stringify } from './lib/json.js';
import { findCases, parseCase } from './lib/conformance/case-file.js';
import { match } from './lib/conformance/match.js';
import { Connection, received } from './lib/conformance/connection.js';
import { Redaction } from './lib/conformance/wire-checks.js';

export { findCases, parseCase, match };

/** protocol/conformance of this repository. */
export const DEFAULT_ROOT = fileURLToPath(new URL('../../protocol/conformance/', import.meta.url));
const EXPECT_TIMEOUT = 5000;

/** The conformance directory a case file belongs to: the parent of its `cases` ancestor. */
function rootOf(file) {
  for (let directory = path.dirname(path.resolve(file)); directory !== path.dirname(directory); directory = path.dirname(directory)) {
    if (path.basename(directory) === 'cases') return path.dirname(directory);
  }
  return DEFAULT_ROOT;
}

/**
 * Runs one case file against a fresh milieud; a scene is looked up in the
 * `scenes` directory next to the case's `cases` directory. A failure names the
 * step (numbered from 1) and its line.
 * @returns {Promise<{name: string, file: string, ok: boolean, error?: string, step?: number, line?: number}>}
 */
export async function runCase(file, { root = rootOf(file), milieud = findMilieud() } = {}) {
  let parsed;
  try {
    parsed = parseCase(readFileSync(file, 'utf8'), path.basename(file, '.jsonl'));
  } catch (error) {
    return { name: path.basename(file, '.jsonl'), file, ok: false, error: `case error: ${error.message}` };
  }
  const { header, steps } = parsed;
  const name = header.case;
  const args = ['--log-level', 'debug'];
  if (header.scene !== undefined) args.push('--scene', path.join(root, 'scenes', header.scene));
  if (header.daemonArgs !== undefined) args.push(...header.daemonArgs);
  let daemon;
  try {
    daemon = await Daemon.start({ milieud, args });
  } catch (error) {
    return { name, file, ok: false, error: `milieud did not start: ${error.message}` };
  }
  const run = { daemon, connections: new Map(), captures: new Map(), redaction: new Redaction() };
  let current;
  try {
    await learnSecureProperties(run);
    run.connections.set('a', await Connection.open(daemon.socketPath, run.redaction));
    for (const [index, step] of steps.entries()) {
      current = { step: index + 1, line: step.line };
      await runStep(step, run);
    }
    current = undefined;
    for (const connection of [...run.connections.keys()]) await finish(run, connection);
    const crash = crashOf(daemon);
    if (crash !== null) throw new Error(crash);
    return { name, file, ok: true };
  } catch (error) {
    // A daemon that died is seen first as a closed connection; give its exit a moment to arrive.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const crash = crashOf(daemon);
    return { name, file, ok: false, error: crash === null || error.message === crash ? error.message : `${error.message}\n${crash}`, ...current };
  } finally {
    for (const connection of run.connections.values()) connection.socket.destroy();
    await daemon.stop();
  }
}

/** Asks `schema/types` on a connection of the runner's own, to know the secure properties. */
async function learnSecureProperties(run) {
  const connection = await Connection.open(run.daemon.socketPath, run.redaction);
  try {
    await connection.write(Buffer.from('{"jsonrpc":"2.0","id":"conformance-types","method":"schema/types","params":{}}\n'));
    const event = await connection.next(EXPECT_TIMEOUT);
    const types = event?.line === undefined ? undefined : received(event.line).value?.result?.types;
    if (!Array.isArray(types)) throw new Error(`the runner's own schema/types request got ${event?.line?.toString('utf8', 0, 500) ?? 'nothing'}`);
    run.redaction.learnTypes(types);
  } finally {
    await connection.closeAndDrain(EXPECT_TIMEOUT);
  }
}

/** How the daemon died during the case, with the end of its log; null while it runs or after a clean exit. */
function crashOf(daemon) {
  const status = daemon.exitStatus;
  if (status === null || status === 'status 0') return null;
  return `milieud exited with ${status} during the case:\n${daemon.log.slice(-3000)}`;
}

/** Closes a connection at a close step or at the end of the case: nothing may be left unread. */
async function finish({ connections }, name) {
  const connection = connections.get(name);
  const unread = await connection.unread();
  if (unread !== undefined) throw new Error(`connection ${name} received a message that no step expected: ${unread.toString('utf8', 0, 2000)}`);
  connections.delete(name);
  if (!(await connection.closeAndDrain(EXPECT_TIMEOUT))) {
    throw new Error(`the daemon did not close connection ${name} within ${EXPECT_TIMEOUT} ms after the runner closed it`);
  }
}

/** `value` with each string "$ref:NAME" replaced by the value captured as NAME (README, "Steps"). */
function substituted(value, captures) {
  if (Array.isArray(value)) return value.map((item) => substituted(item, captures));
  if (value !== null && typeof value === 'object' && !(value instanceof Double)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituted(item, captures)]));
  }
  if (typeof value === 'string' && value.startsWith('$ref:')) {
    const name = value.slice('$ref:'.length);
    if (!captures.has(name)) throw new Error(`case error: ${value} refers to nothing captured in an earlier step`);
    return captures.get(name);
  }
  return value;
}

async function runStep({ action, argument, conn }, run) {
  const { connections } = run;
  if (action === 'open') {
    if (connections.has(argument)) throw new Error(`case error: connection ${argument} is already open`);
    connections.set(argument, await Connection.open(run.daemon.socketPath, run.redaction));
    return;
  }
  const name = action === 'close' ? argument : conn;
  const connection = connections.get(name);
  if (connection === undefined) throw new Error(`case error: connection ${name} is not open`);
  switch (action) {
    case 'close':
      return finish(run, name);
    case 'send':
      return connection.write(Buffer.from(`${stringify(substituted(argument, run.captures))}\n`, 'utf8'));
    case 'sendRaw':
      return connection.write(Buffer.from(argument, 'utf8'));
    case 'sendHex':
      return connection.write(Buffer.from(argument, 'hex'));
    case 'expect':
      return expect(connection, name, argument, run.captures);
    case 'expectNothing': {
      const event = await connection.next(Number(argument));
      if (event === null) return;
      throw new Error(`expectNothing on ${name}: ${event.closed ? 'the daemon closed the connection' : `a message arrived: ${event.line.toString('utf8', 0, 2000)}`}`);
    }
    case 'expectClosed': {
      const event = await connection.next(EXPECT_TIMEOUT);
      if (event === null) throw new Error(`expectClosed on ${name}: the connection is still open after ${EXPECT_TIMEOUT} ms`);
      if (!event.closed) throw new Error(`expectClosed on ${name}: a message arrived: ${event.line.toString('utf8', 0, 2000)}`);
      connection.socket.destroy();
      connections.delete(name);
    }
  }
}

/** The next message on `connection` matches `pattern` and breaks no rule of the protocol. */
async function expect(connection, name, pattern, captures) {
  const event = await connection.next(EXPECT_TIMEOUT);
  if (event === null) throw new Error(`expect on ${name}: no message within ${EXPECT_TIMEOUT} ms`);
  if (event.closed) throw new Error(`expect on ${name}: the daemon closed the connection instead`);
  const { text, value } = received(event.line);
  const problems = connection.checks.received(value);
  let mismatch;
  try {
    mismatch = match(pattern, value, captures);
  } catch (error) {
    throw new Error(`case error: bad pattern: ${error.message}`);
  }
  const wire = problems.length === 0 ? '' : `\n  wire:     ${problems.join('\n            ')}`;
  if (mismatch) throw new Error(`expect on ${name}: ${mismatch}\n  pattern:  ${stringify(pattern).slice(0, 2000)}\n  received: ${text.slice(0, 2000)}${wire}`);
  if (problems.length > 0) throw new Error(`expect on ${name}: the message violates the protocol\n  received: ${text.slice(0, 2000)}${wire}`);
}

/** Runs every case under `root`/cases (or the given files), one after another. */
export async function runAll({ root = DEFAULT_ROOT, milieud = findMilieud(), files = findCases(path.join(root, 'cases')) } = {}) {
  const results = [];
  for (const file of files) results.push(await runCase(file, { milieud }));
  return results;
}

async function main(argv) {
  let milieud = findMilieud();
  const targets = [];
  for (let index = 0; index < argv.length; index++) {
    if (argv[index] === '--milieud') milieud = argv[++index];
    else targets.push(path.resolve(argv[index]));
  }
  const files = targets.length === 0 ? findCases(path.join(DEFAULT_ROOT, 'cases')) : targets.flatMap((target) => (statSync(target).isDirectory() ? findCases(target) : [target]));
  if (files.length === 0) {
    console.log('# no conformance cases found');
    return 0;
  }
  const results = await runAll({ milieud, files });
  results.forEach((result, index) => {
    const where = result.line === undefined ? '' : ` (step ${result.step}, ${path.relative(process.cwd(), result.file)}:${result.line})`;
    console.log(result.ok ? `ok ${index + 1} - ${result.name}` : `not ok ${index + 1} - ${result.name}${where}\n  ${result.error.replaceAll('\n', '\n  ')}`);
  });
  const failed = results.filter((result) => !result.ok).length;
  console.log(`conformance: ${results.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
