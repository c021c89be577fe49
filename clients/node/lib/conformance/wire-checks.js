// Checks of every message a conformance case reads, besides its pattern (protocol/conformance/
// README.md, "What a runner checks besides patterns"): the JSON-RPC 2.0 envelope, that each
// response answers a pending request, and that no secure value leaves the daemon (SPEC §7).
// (The Python runner also validates the JSON Schemas; that needs a validator this one lacks.)

import { Double } from '../json.js';
import { parseExact } from '../exact-json.js';
import { isObject } from './match.js';

const MIN_SECRET = 4;
const NOTIFICATIONS = new Set(['graph/didChange', 'view/didUpdate', 'view/didMount', 'view/didUnmount', 'object/didCreate', 'object/didDestroy', 'diagnostic', 'graph/didCommit']);

/**
 * What the case has taught about secure values: the secure properties of each type (from
 * `schema/types`, asked on a connection of the runner's own, and from `schema/register`
 * requests the case sends), and the secrets (strings of 4 characters or more) it wrote to
 * them with `graph/set`, alone or in a `graph/transaction`.
 */
export class Redaction {
  #secure = new Map(); // type name → Set of secure property names
  #plain = new Set(); // property names that are not secure in some type
  #secrets = new Set();

  /** Learns from a `schema/types` result's `types`. */
  learnTypes(types) {
    for (const type of types) {
      for (const property of type.properties ?? []) this.#learn(type.name, property.name, property.secure === true);
    }
  }

  /** Learns from a request the case sends. */
  learnSent(request) {
    const params = request.params;
    if (!isObject(params)) return;
    if (request.method === 'schema/register' && Array.isArray(params.types)) {
      for (const declared of params.types) {
        if (!isObject(declared) || !isObject(declared.properties)) continue;
        for (const [name, spec] of Object.entries(declared.properties)) this.#learn(declared.name, name, isObject(spec) && spec.secure === true);
      }
    } else if (request.method === 'graph/set') {
      this.#learnWrite(params);
    } else if (request.method === 'graph/transaction' && Array.isArray(params.ops)) {
      for (const op of params.ops) if (isObject(op) && op.method === 'graph/set' && isObject(op.params)) this.#learnWrite(op.params);
    }
  }

  /** The leaks of secure values in one message from the daemon. */
  problems(message) {
    const found = [];
    walk(message, (node) => {
      if (typeof node === 'string') {
        for (const secret of this.#secrets) if (node.includes(secret)) found.push(`a secret written to a secure property appears: ${JSON.stringify(node)}`);
      } else if (isSnapshot(node)) {
        const hidden = new Set([...node.redacted, ...(this.#secure.get(node.type) ?? [])]);
        for (const name of Object.keys(node.values)) if (hidden.has(name)) found.push(`the snapshot of ${node.object} shows secure property ${name}`);
      }
    });
    if (isObject(message) && message.method === 'graph/didChange' && isObject(message.params) && Array.isArray(message.params.changes)) {
      for (const change of message.params.changes) {
        if (isObject(change) && typeof change.path === 'string' && Object.hasOwn(change, 'value') && this.#isSecureName(lastMember(change.path))) {
          found.push(`graph/didChange shows the value of secure ${change.path}`);
        }
      }
    }
    return found;
  }

  #learn(type, property, secure) {
    if (typeof property !== 'string') return;
    if (!secure) {
      this.#plain.add(property);
      return;
    }
    if (!this.#secure.has(type)) this.#secure.set(type, new Set());
    this.#secure.get(type).add(property);
  }

  #isSecureName(name) {
    return !this.#plain.has(name) && [...this.#secure.values()].some((names) => names.has(name));
  }

  #learnWrite({ path, value }) {
    if (typeof path === 'string' && typeof value === 'string' && value.length >= MIN_SECRET && this.#isSecureName(lastMember(path))) {
      this.#secrets.add(value);
    }
  }
}

/**
 * The checks of one connection: the requests sent on it (so that each response must answer
 * one still pending, or have id null), and every message read from it.
 */
export class WireChecks {
  #redaction;
  #unframed = Buffer.alloc(0);
  /** id (as a key) → how many requests with it await their response */
  #pending = new Map();

  constructor(redaction) {
    this.#redaction = redaction;
  }

  /** Accounts for bytes sent: the requests of the lines they complete. */
  sent(bytes) {
    let data = Buffer.concat([this.#unframed, bytes]);
    let end;
    while ((end = data.indexOf(0x0a)) !== -1) {
      this.#sentLine(data.subarray(0, end));
      data = data.subarray(end + 1);
    }
    this.#unframed = Buffer.from(data);
  }

  #sentLine(line) {
    let value;
    try {
      value = parseExact(line.toString('utf8'));
    } catch {
      return; // not JSON: answered with id null
    }
    for (const element of Array.isArray(value) ? value : [value]) {
      if (!isObject(element)) continue;
      if (typeof element.method === 'string') this.#redaction.learnSent(element);
      const key = idKey(element.id);
      if (Object.hasOwn(element, 'id') && key !== null) this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    }
  }

  /** The protocol violations in one message read from the daemon. */
  received(message) {
    const problems = this.#redaction.problems(message);
    if (isObject(message) && Object.hasOwn(message, 'method') && !Object.hasOwn(message, 'id')) return problems.concat(notificationProblems(message));
    if (Array.isArray(message)) {
      if (message.length === 0) return problems.concat('an empty array: a batch response has at least one element');
      message.forEach((element, index) => problems.push(...this.#responseProblems(element).map((problem) => `batch element ${index}: ${problem}`)));
      return problems;
    }
    return problems.concat(this.#responseProblems(message));
  }

  #responseProblems(response) {
    if (!isObject(response)) return ['a response must be an object'];
    const problems = envelopeProblems(response, ['jsonrpc', 'id', 'result', 'error']);
    if (!Object.hasOwn(response, 'id')) problems.push('a response has an id');
    if (Object.hasOwn(response, 'result') === Object.hasOwn(response, 'error')) problems.push('a response has exactly one of result and error');
    if (Object.hasOwn(response, 'error')) problems.push(...errorProblems(response.error, response.id));
    const key = idKey(response.id);
    if (response.id !== null && key !== null) {
      const waiting = this.#pending.get(key) ?? 0;
      if (waiting === 0) problems.push(`id ${key} answers no pending request`);
      else this.#pending.set(key, waiting - 1);
    }
    return problems;
  }
}

function envelopeProblems(message, allowed) {
  const problems = [];
  if (message.jsonrpc !== '2.0') problems.push('"jsonrpc" must be "2.0"');
  const extra = Object.keys(message).filter((key) => !allowed.includes(key));
  if (extra.length > 0) problems.push(`unexpected member(s) ${extra.join(', ')}`);
  return problems;
}

function notificationProblems(notification) {
  const problems = envelopeProblems(notification, ['jsonrpc', 'method', 'params']);
  if (!NOTIFICATIONS.has(notification.method)) problems.push(`${JSON.stringify(notification.method)} is not a notification of protocol 1`);
  if (!isObject(notification.params)) problems.push('a notification has params, an object');
  return problems;
}

function errorProblems(error, id) {
  if (!isObject(error)) return ['"error" must be an object'];
  const problems = [];
  const code = typeof error.code === 'bigint' ? Number(error.code) : null;
  const allowed = code !== null && (code === -32700 || (code >= -32603 && code <= -32600) || (code >= -32099 && code <= -32000));
  if (!allowed) problems.push(`error code ${error.code} is not one JSON-RPC 2.0 and Milieu allow`);
  if (code === -32700 && id !== null) problems.push('a parse error has id null');
  if (typeof error.message !== 'string') problems.push('an error has a message, a string');
  if (!isObject(error.data) || typeof error.data.kind !== 'string') problems.push('an error has data with a kind (SPEC §3.1)');
  return problems;
}

/** A request id as a key (numbers by value), or null for what is no valid id. */
function idKey(id) {
  if (typeof id === 'string') return JSON.stringify(id);
  if (typeof id === 'bigint') return String(id);
  if (id instanceof Double) return id.text ?? String(id.value);
  return null;
}

function isSnapshot(node) {
  return (
    isObject(node) &&
    typeof node.object === 'string' &&
    typeof node.type === 'string' &&
    isObject(node.values) &&
    Array.isArray(node.redacted) &&
    node.redacted.every((name) => typeof name === 'string')
  );
}

function walk(value, visit) {
  visit(value);
  if (Array.isArray(value)) for (const element of value) walk(element, visit);
  else if (isObject(value)) for (const member of Object.values(value)) walk(member, visit);
}

function lastMember(path) {
  return path.slice(path.lastIndexOf('.') + 1);
}
