// The client: one connection to milieud, requests matched to responses by id, watches, reconnection.

import net from 'node:net';
import { readFileSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { LineDecoder } from './framing.js';
import { stringify } from './json.js';
import { resolveSocketPath } from './socket-path.js';
import { checkSameSocket, checkSocketPath } from './trust.js';
import { Watch } from './watch.js';
import { ops } from './ops.js';
import { Compacted, ConnectionLost, MessageTooLarge, ProtocolError, TimeoutError, errorFromWire } from './errors.js';

const { version: VERSION } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const RECONNECT_DEFAULTS = Object.freeze({ initialDelay: 50, maxDelay: 2000, maxAttempts: 30 });
const START = Symbol('start');

/**
 * Connects to milieud and sends `initialize`.
 * @param {object|string} [options] see index.d.ts `ConnectOptions`; a string is the socket path
 * @returns {Promise<Client>}
 */
export async function connect(options = {}) {
  const client = new Client(typeof options === 'string' ? { socketPath: options } : options);
  await client[START]();
  return client;
}

/**
 * A connection to milieud with a Promise API. Make one with `connect()`.
 * Events: 'disconnect' (the connection dropped; a reconnection starts),
 * 'reconnect' ({attempt, instance, restarted, restore}), 'close' (for good; the error, if any).
 */
export class Client extends EventEmitter {
  #socketPath;
  #timeout;
  #reconnect;
  #clientInfo;
  #socket = null;
  /** 'connecting', 'open', 'reconnecting' or 'closed'. */
  #state = 'connecting';
  #nextId = 1;
  /** id → {resolve, reject, sent, timer?, signal?, onAbort?, onResult?} */
  #pending = new Map();
  /** Lines written while reconnecting, sent once the watches are resumed: {line, ids}. */
  #outbox = [];
  /** The daemon's watch id → Watch, on the current connection. */
  #watches = new Map();
  /** The watches to resume after a reconnection, in the order they were made. */
  #liveWatches = new Set();
  /** Ids of `watch` requests sent, then given up on: a late answer's watch is ended. */
  #abandonedWatches = new Set();
  /** Why the daemon closed the connection, if its last line said so: an error with `id: null` (MessageTooLarge, a refused peer) or `connection/dropped`. */
  #lastWord = null;
  #info = null;
  #stopping = false;
  #openWaiters = [];
  #sleep = null;

  /** Use `connect()`. */
  constructor({ socketPath, timeout = 30000, reconnect = true, client } = {}) {
    super();
    this.#socketPath = socketPath ?? resolveSocketPath();
    this.#timeout = timeout;
    this.#reconnect = reconnect === false ? null : { ...RECONNECT_DEFAULTS, ...(reconnect === true ? {} : reconnect) };
    this.#clientInfo = client ?? { name: 'milieu-node', version: VERSION };
  }

  async [START]() {
    try {
      await this.#open();
    } catch (error) {
      this.#socket?.destroy();
      this.#finish(error, error);
      throw error;
    }
    this.#state = 'open';
  }

  /** The socket path this client connects to. */
  get socketPath() {
    return this.#socketPath;
  }

  /** 'open', 'reconnecting' or 'closed'. */
  get state() {
    return this.#state;
  }

  /** The current `net.Socket`, or null between connections — for diagnostics and tests. */
  get socket() {
    return this.#socket;
  }

  /** The daemon's `{name, version}`, from `initialize`. */
  get server() {
    return this.#info?.server;
  }

  /** The daemon's capabilities, from `initialize`. */
  get capabilities() {
    return this.#info?.capabilities;
  }

  /** The daemon instance's id; it changes when the daemon restarts. */
  get instance() {
    return this.#info?.instance;
  }

  /**
   * What the daemon could not bring back when it started — `{types, views, values, dropped,
   * droppedCount}`, from `initialize` (SPEC §9.1) — or undefined when it dropped nothing.
   */
  get restore() {
    return this.#info?.restore;
  }

  // ---- Methods (SPEC §9). Each takes an optional last `{timeout, signal}`; see `request` for `call`.
  // Those that only send one request are made from REQUESTS, below the class.

  /** `initialize`; `connect()` has sent it already. */
  initialize(params = { client: this.#clientInfo, protocolVersion: '1' }, options) {
    return this.request('initialize', params, {
      ...options,
      onResult: (result) => {
        this.#info = result;
        return result;
      },
    });
  }

  /**
   * `watch` → a `Watch`. `params`: `{paths?, views?, lifecycle?, commits?, printChanges?, sinceVersion?}`.
   * @returns {Promise<Watch>}
   */
  watch(params = {}, options) {
    const { sinceVersion, ...targets } = params;
    return this.request('watch', params, {
      ...options,
      onResult: (result) => {
        const watch = new Watch((w) => this.unwatch(w), targets, result, this.instance, sinceVersion);
        this.#watches.set(result.watch, watch);
        this.#liveWatches.add(watch);
        return watch;
      },
    });
  }

  /** `unwatch` a `Watch` (or a daemon watch id) → `{}`. */
  async unwatch(watch, options) {
    if (!(watch instanceof Watch)) {
      const known = this.#watches.get(watch);
      return known ? this.unwatch(known, options) : this.request('unwatch', { watch }, options);
    }
    this.#liveWatches.delete(watch);
    if (this.#state === 'reconnecting') await this.#whenOpen().catch(() => {});
    const id = watch.id;
    if (this.#state !== 'open' || this.#watches.get(id) !== watch) {
      watch._end();
      return {};
    }
    try {
      return await this.request('unwatch', { watch: id }, options);
    } finally {
      if (this.#watches.get(id) === watch) this.#watches.delete(id);
      watch._end();
    }
  }

  /**
   * `view/tree` → `{root, version}`: the views from `path` (default `/App`), `options.depth`
   * levels below it at most (a view at the limit has `childCount`), asked for
   * `options.pageSize` (default 1000) views at a time, following each page's cursor, and put
   * together — a tree of any size arrives without one answer passing the daemon's output limit
   * (SPEC §9.11). Each page is the tree as of its own version; `version` is the last page's.
   * `timeout` and `signal` apply to each page.
   */
  async tree(path, { depth, pageSize = 1000, ...options } = {}) {
    let params = { limit: pageSize };
    if (path !== undefined) params.path = path;
    if (depth !== undefined) params.depth = depth;
    const nodes = [];
    for (;;) {
      const page = await this.request('view/tree', params, options);
      nodes.push(...page.nodes);
      if (page.nextCursor === undefined) return { root: assembleTree(nodes), version: page.version };
      params = { cursor: page.nextCursor, limit: pageSize };
    }
  }

  /**
   * A scene — what `translate()` makes of SwiftUI source, or a scene file's JSON: its types
   * registered in the place of any of the same name, then its views mounted, retained, in one
   * transaction → `{types, views, version}` (`version` null when it has no views).
   */
  async load(scene, options) {
    const params = { replace: true };
    if (scene.types?.length) params.types = scene.types;
    if (scene.environmentKeys && Object.keys(scene.environmentKeys).length) params.environmentKeys = scene.environmentKeys;
    const registered = params.types || params.environmentKeys ? (await this.request('schema/register', params, options)).types : [];
    const mounts = (scene.views ?? []).map((view) => ops.mount({ ...view, retain: true }));
    if (mounts.length === 0) return { types: registered, views: [], version: null };
    const done = await this.request('graph/transaction', { ops: mounts }, options);
    return { types: registered, views: done.results.map((result) => result.path), version: done.version };
  }

  /** `shutdown`: the daemon stops; then this client closes (it does not reconnect). */
  async shutdown(options) {
    const result = await this.request('shutdown', {}, {
      ...options,
      onResult: (value) => {
        this.#stopping = true;
        return value;
      },
    });
    await this.close();
    return result;
  }

  /**
   * Sends any request. `options`: `timeout` (ms; 0 for none; default the
   * client's), `signal` (an AbortSignal). Rejects with the typed error of the
   * response, `TimeoutError`, the signal's reason, or `ConnectionLost`.
   */
  request(method, params, options = {}) {
    // Where the call was made: the error it rejects with shows this stack, not the socket's.
    const caller = {};
    Error.captureStackTrace(caller, this.request);
    return this.#request(method, params, options).catch((error) => {
      throw withCallerStack(error, caller.stack);
    });
  }

  #request(method, params, options) {
    const message = { jsonrpc: '2.0', id: this.#nextId++, method };
    if (params !== undefined) message.params = params;
    let line;
    try {
      line = stringify(message);
    } catch (error) {
      return Promise.reject(error);
    }
    const tooLarge = this.#tooLarge(line);
    if (tooLarge !== null) return Promise.reject(tooLarge);
    const promise = this.#expect(message.id, method, options);
    this.#send(line, [message.id], options.internal);
    return promise;
  }

  /** Sends a notification (a request without id): executed, never answered. */
  notify(method, params) {
    const message = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    const line = stringify(message);
    if (this.#state === 'closed') throw new ConnectionLost('The client is closed');
    const tooLarge = this.#tooLarge(line);
    if (tooLarge !== null) throw tooLarge;
    this.#send(line, [], false);
  }

  /**
   * Sends several requests as one JSON-RPC batch (SPEC §2.2): each runs as
   * its own transaction, with nothing from other connections in between.
   * `calls`: `[{method, params?, notification?}]`. Resolves, like
   * `Promise.allSettled`, to one `{status, value}` or `{status, reason}` per
   * call, in order; a notification's entry is `{status: 'fulfilled', value: undefined}`.
   */
  batch(calls, options = {}) {
    if (!Array.isArray(calls) || calls.length === 0) return Promise.reject(new TypeError('batch takes a non-empty array of calls'));
    const messages = calls.map(({ method, params, notification }) => {
      const message = notification ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', id: this.#nextId++, method };
      if (params !== undefined) message.params = params;
      return message;
    });
    let line;
    try {
      line = stringify(messages);
    } catch (error) {
      return Promise.reject(error);
    }
    const tooLarge = this.#tooLarge(line);
    if (tooLarge !== null) return Promise.reject(tooLarge);
    const promises = messages.map((message) => ('id' in message ? this.#expect(message.id, message.method, options) : undefined));
    this.#send(line, messages.filter((message) => 'id' in message).map((message) => message.id), false);
    return Promise.allSettled(promises);
  }

  /** `await using client = await connect()`: closes the client when the scope ends. */
  async [Symbol.asyncDispose]() {
    await this.close();
  }

  /** Closes the connection; pending requests fail with `ConnectionLost`, watches end. */
  async close() {
    if (this.#state === 'closed') return;
    const socket = this.#socket;
    this.#finish(new ConnectionLost('The client was closed'), null);
    if (socket !== null && !socket.destroyed) {
      await new Promise((resolve) => {
        socket.once('close', resolve);
        socket.end();
      });
    }
  }

  // ---- Requests and responses

  /** Registers the pending request `id` and returns the promise of its result. */
  #expect(id, method, { timeout = this.#timeout, signal, onResult } = {}) {
    return new Promise((resolve, reject) => {
      if (this.#state === 'closed') {
        reject(new ConnectionLost('The client is closed'));
        return;
      }
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const entry = { resolve, reject, onResult, sent: false };
      if (timeout > 0 && Number.isFinite(timeout)) {
        entry.timer = setTimeout(() => {
          this.#giveUp(id, entry, method);
          reject(new TimeoutError(method, timeout));
        }, timeout);
      }
      if (signal) {
        entry.signal = signal;
        entry.onAbort = () => {
          this.#giveUp(id, entry, method);
          reject(signal.reason);
        };
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.#pending.set(id, entry);
    });
  }

  #settle(id, entry) {
    this.#pending.delete(id);
    clearTimeout(entry.timer);
    entry.signal?.removeEventListener('abort', entry.onAbort);
  }

  /**
   * Stops waiting for request `id` (timed out, aborted). A `watch` already sent may still be
   * made: its late answer is remembered, to end the watch nobody holds (`#onResponse`).
   */
  #giveUp(id, entry, method) {
    this.#settle(id, entry);
    if (method === 'watch' && entry.sent) this.#abandonedWatches.add(id);
  }

  /** A `MessageTooLarge` when `line` is over the daemon's line limit (SPEC §1.3), which would cost the connection. */
  #tooLarge(line) {
    const limit = this.#info?.capabilities?.maxLineBytes;
    if (!Number.isInteger(limit)) return null;
    const bytes = Buffer.byteLength(line);
    if (bytes <= limit) return null;
    return new MessageTooLarge(`The request is ${bytes} bytes; milieud takes lines of at most ${limit} bytes`, {
      code: -32010,
      data: { kind: 'MessageTooLarge', limit },
    });
  }

  /** Writes a line now, or — while reconnecting — once the watches are resumed. Internal requests go now. */
  #send(line, ids, internal) {
    const live = ids.filter((id) => this.#pending.has(id));
    if (ids.length > 0 && live.length === 0) return;
    if (internal && this.#socket === null) {
      // The connection being set up is already gone (a refusing daemon closes at once): the
      // handshake fails now, with the daemon's reason if it gave one.
      const error = this.#lastWord ?? new ConnectionLost('The connection to milieud closed before the request was sent');
      for (const id of live) {
        const entry = this.#pending.get(id);
        this.#settle(id, entry);
        entry.reject(error);
      }
      return;
    }
    if (this.#socket !== null && (this.#state === 'open' || internal)) {
      for (const id of live) this.#pending.get(id).sent = true;
      this.#socket.write(`${line}\n`);
    } else {
      this.#outbox.push({ line, ids });
    }
  }

  #onLine(text) {
    if (text.trim() === '') return;
    let message;
    try {
      message = JSON.parse(text);
    } catch (error) {
      this.#socket?.destroy(new Error(`milieud sent a line that is not JSON: ${error.message}`));
      return;
    }
    // The last word is the last line only: a refusal is followed by nothing but the close.
    if (message?.id !== null || !message.error) this.#lastWord = null;
    if (Array.isArray(message)) {
      for (const response of message) this.#onResponse(response);
    } else if (message !== null && typeof message === 'object') {
      if (typeof message.method === 'string') {
        if (message.method === 'connection/dropped' && !('id' in message)) {
          // The daemon's last line before it closes the connection for not reading (SPEC §10.8).
          const { message: said = 'the daemon dropped the connection', reason } = message.params ?? {};
          this.#lastWord = new ConnectionLost(typeof reason === 'string' ? `${said} (${reason})` : said);
        } else if (!('id' in message)) this.#onNotification(message);
      } else {
        this.#onResponse(message);
      }
    }
  }

  #onResponse(response) {
    if (response === null || typeof response !== 'object') return;
    if (response.id === null || response.id === undefined) {
      if (response.error) this.#lastWord = errorFromWire(response.error);
      return;
    }
    const entry = this.#pending.get(response.id);
    if (entry === undefined) {
      // Timed out or aborted: nobody waits for it any more. A watch made all the same would send
      // notifications nobody sees until the connection closes: it is ended.
      const watch = response.result?.watch;
      if (this.#abandonedWatches.delete(response.id) && Number.isInteger(watch)) {
        this.request('unwatch', { watch }, { internal: true }).catch(() => {});
      }
      return;
    }
    this.#settle(response.id, entry);
    if (response.error !== undefined) {
      entry.reject(errorFromWire(response.error));
      return;
    }
    let value = response.result;
    if (entry.onResult) {
      // Runs before the next line is read: a watch is registered before its first notification.
      try {
        value = entry.onResult(value);
      } catch (error) {
        entry.reject(error);
        return;
      }
    }
    entry.resolve(value);
  }

  #onNotification({ method, params }) {
    if (params !== null && typeof params === 'object' && Number.isInteger(params.watch)) {
      this.#watches.get(params.watch)?._receive(method, params);
    }
  }

  // ---- Connections

  /** Connects a socket and sends `initialize`. */
  async #open() {
    await this.#connectSocket();
    try {
      await this.initialize(undefined, { internal: true });
    } catch (error) {
      // A daemon that refuses the connection (another user's: Forbidden) writes why, then
      // closes; when the close came before initialize was written, the write failed (EPIPE)
      // and the socket was gone before the reason was read. Listen for it once more.
      if (error instanceof ConnectionLost) throw (await this.#refusal()) ?? error;
      throw error;
    }
  }

  /**
   * Connects once more, sends nothing and reads for up to a second: the error a refusing daemon
   * sends at once with id null (SPEC §1.2), or null when none comes.
   */
  #refusal() {
    return new Promise((resolve) => {
      const socket = net.createConnection(this.#socketPath);
      let text = '';
      const done = (error) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(error);
      };
      const timer = setTimeout(() => done(null), 1000);
      socket.on('data', (chunk) => {
        text += chunk;
        const end = text.indexOf('\n');
        if (end < 0) {
          if (text.length > 65536) done(null);
          return;
        }
        let message = null;
        try {
          message = JSON.parse(text.slice(0, end));
        } catch {
          // not a refusal
        }
        done(message?.id === null && message.error ? errorFromWire(message.error) : null);
      });
      socket.on('error', () => done(null));
      socket.on('close', () => done(null));
    });
  }

  #connectSocket() {
    return new Promise((resolve, reject) => {
      const judged = checkSocketPath(this.#socketPath); // a throw here rejects the promise
      const socket = net.createConnection(this.#socketPath);
      const onError = (error) => {
        socket.destroy();
        reject(new ConnectionLost(`Cannot connect to milieud at ${this.#socketPath}: ${error.message}`, error));
      };
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        if (this.#state === 'closed') {
          socket.destroy();
          reject(new ConnectionLost('The client was closed'));
          return;
        }
        try {
          checkSameSocket(this.#socketPath, judged); // Node has no SO_PEERCRED: the file's owner, again
        } catch (error) {
          socket.destroy();
          reject(error);
          return;
        }
        this.#attach(socket);
        resolve();
      });
    });
  }

  #attach(socket) {
    this.#socket = socket;
    this.#lastWord = null;
    let socketError = null;
    const decoder = new LineDecoder((line) => this.#onLine(line), {
      onOverflow: (bytes) => socket.destroy(new Error(`milieud sent a line longer than this client can hold (${bytes} bytes)`)),
    });
    socket.on('data', (chunk) => {
      if (this.#socket === socket) decoder.push(chunk);
    });
    socket.on('error', (error) => {
      socketError = error;
    });
    socket.on('close', () => {
      if (this.#socket === socket) this.#onDisconnect(socketError);
    });
  }

  #onDisconnect(socketError) {
    this.#socket = null;
    this.#watches.clear();
    this.#abandonedWatches.clear(); // the daemon ends a connection's watches with it
    const cause = this.#lastWord ?? socketError ?? undefined;
    const lost = new ConnectionLost(cause ? `The connection to milieud was lost: ${cause.message}` : 'The connection to milieud was lost', cause);
    // While connecting, a daemon's last word (Forbidden) is the answer to the handshake itself.
    const answer = this.#state !== 'open' && this.#lastWord ? this.#lastWord : lost;
    for (const [id, entry] of this.#pending) {
      if (!entry.sent) continue;
      this.#settle(id, entry);
      entry.reject(answer);
    }
    if (this.#state === 'open') {
      if (this.#reconnect === null || this.#stopping) {
        this.#finish(lost, this.#stopping ? null : lost);
        return;
      }
      this.#state = 'reconnecting';
      this.emit('disconnect', lost);
      this.#reconnectLoop(lost);
    }
    // While connecting or reconnecting, the failed request ends that attempt; when closed, nothing is left to do.
  }

  async #reconnectLoop(lastError) {
    const { initialDelay, maxDelay, maxAttempts } = this.#reconnect;
    const previous = this.instance;
    let delay = 0;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (delay > 0) await new Promise((resolve) => {
        this.#sleep = { timer: setTimeout(resolve, delay), resolve };
      });
      this.#sleep = null;
      if (this.#state !== 'reconnecting') return;
      delay = delay === 0 ? initialDelay : Math.min(delay * 2, maxDelay);
      let resynced;
      try {
        await this.#open();
        resynced = await this.#resumeWatches();
      } catch (error) {
        lastError = error;
        if (this.#state !== 'reconnecting') return;
        this.#socket?.destroy();
        continue;
      }
      if (this.#state !== 'reconnecting') return;
      this.#state = 'open';
      const outbox = this.#outbox;
      this.#outbox = [];
      for (const { line, ids } of outbox) this.#send(line, ids, false);
      for (const waiter of this.#openWaiters.splice(0)) waiter.resolve();
      const restarted = this.instance !== previous || resynced;
      this.emit('reconnect', { attempt, instance: this.instance, restarted, restore: this.restore });
      return;
    }
    const error = new ConnectionLost(`Could not reconnect to milieud at ${this.#socketPath} in ${maxAttempts} attempts`, lastError);
    this.#finish(error, error);
  }

  /**
   * Re-makes every live watch on the new connection: with `sinceVersion` on the instance
   * it was last made on, afresh (and 'resync') on another instance or when the history is
   * compacted. Each watch keeps its own instance, so an attempt cut short after resyncing
   * some watches resyncs the rest on the next. A watch whose targets are gone ends with that error.
   * Resolves to whether some watch was made afresh because its instance was not this one.
   */
  async #resumeWatches() {
    let restarted = false;
    for (const watch of [...this.#liveWatches]) {
      if (!this.#liveWatches.has(watch)) continue;
      try {
        if (watch._instance !== this.instance) {
          restarted = true;
          await this.#rewatch(watch, { reason: 'restarted', instance: this.instance });
          continue;
        }
        const { params, skip } = watch._resumePoint();
        try {
          await this.request('watch', params, { internal: true, onResult: (result) => this.#rebind(watch, result, skip) });
        } catch (error) {
          if (!(error instanceof Compacted)) throw error;
          await this.#rewatch(watch, { reason: 'compacted', oldest: error.oldest });
        }
      } catch (error) {
        if (error instanceof ConnectionLost || error instanceof TimeoutError) throw error;
        this.#liveWatches.delete(watch);
        watch._end(error);
      }
    }
    return restarted;
  }

  #rewatch(watch, info) {
    return this.request('watch', watch.params, {
      internal: true,
      onResult: (result) => {
        this.#watches.set(result.watch, watch);
        watch._resync(result, this.instance, info);
      },
    });
  }

  #rebind(watch, result, skip) {
    this.#watches.set(result.watch, watch);
    watch._rebind(result, skip);
  }

  #whenOpen() {
    if (this.#state === 'open') return Promise.resolve();
    if (this.#state === 'closed') return Promise.reject(new ConnectionLost('The client is closed'));
    return new Promise((resolve, reject) => this.#openWaiters.push({ resolve, reject }));
  }

  /** Closes for good: pending requests fail with `error`, watches end with `watchError` (or cleanly). */
  #finish(error, watchError) {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    if (this.#sleep !== null) {
      clearTimeout(this.#sleep.timer);
      this.#sleep.resolve();
    }
    for (const [id, entry] of this.#pending) {
      this.#settle(id, entry);
      entry.reject(error);
    }
    this.#outbox = [];
    for (const waiter of this.#openWaiters.splice(0)) waiter.reject(error);
    for (const watch of this.#liveWatches) watch._end(watchError);
    this.#liveWatches.clear();
    this.#watches.clear();
    this.emit('close', watchError ?? undefined);
  }
}

/** The tree the nodes of a walk's pages make, in order: each view under its parent, without `parent`. */
export function assembleTree(nodes) {
  const byPath = new Map();
  let root;
  for (const { parent, ...node } of nodes) {
    if (node.childCount === undefined) node.children = [];
    byPath.set(node.path, node);
    if (parent === null) root ??= node;
    else byPath.get(parent)?.children?.push(node);
  }
  if (root === undefined) throw new ProtocolError('view/tree sent no root', { data: { kind: 'InternalError' } });
  return root;
}

/** The request of a transaction op made alone: `[method, params, options]`. */
const alone = ({ method, params }, options) => [method, params, options];

/**
 * The methods that send one request and resolve to its result, each as a function from the
 * method's arguments to the request's `[method, params, options]`. Each becomes a method of
 * `Client` of the same name (its type is in index.d.ts). Those that are also transaction ops
 * build their params with `ops`, so a method and its op cannot differ.
 */
const REQUESTS = Object.freeze({
  /** `schema/types` → `{types}`. */
  types: (options) => ['schema/types', {}, options],
  /**
   * `schema/register`: model types and, with `options.environmentKeys` (`{key: {type, default?, ...}}`),
   * custom environment keys → `{types, environmentKeys, version}`.
   */
  register: (types = [], { environmentKeys, replace, ...options } = {}) => [
    'schema/register',
    {
      ...(environmentKeys === undefined ? { types } : types.length === 0 ? { environmentKeys } : { types, environmentKeys }),
      ...(replace ? { replace: true } : {}),
    },
    options,
  ],
  /** `graph/get` → the value, object snapshot or view snapshot at `path`. */
  get: (path, options) => ['graph/get', { path }, options],
  /** `graph/set` → `{version}`. `options.ifVersion` makes it conditional. */
  set: (path, value, { ifVersion, ...options } = {}) => alone(ops.set(path, value, { ifVersion }), options),
  /** `graph/call` with positional arguments → `{result, version}`. */
  call: (path, ...args) => alone(ops.call(path, ...args)),
  /** `graph/transaction`, all or nothing → `{results, version}`. See `ops` for building the ops. */
  transaction: (transactionOps, options) => ['graph/transaction', { ops: transactionOps }, options],
  /** `view/mount` → `{path, body, objects, version}`. */
  mount: (declaration, options) => alone(ops.mount(declaration), options),
  /** `view/unmount` → `{version}`. */
  unmount: (path, options) => alone(ops.unmount(path), options),
  /** `view/provide` with `{environmentObjects?, observables?, environment?, withdraw?}` → `{version}`. */
  provide: (path, provision, options) => alone(ops.provide(path, provision), options),
  /** `view/dependencies` → `{path, dependencies, version}`: what the view's last evaluation read, with reasons. */
  dependencies: (path, options) => ['view/dependencies', { path }, options],
  /** `graph/readers` → `{readers, version}`: the views a change of the key path would evaluate, parents first. */
  readers: (path, options) => ['graph/readers', { path }, options],
  /** `view/environment` → `{path, environmentObjects, observables, environment, version}`, each with its provider. */
  environment: (path, options) => ['view/environment', { path }, options],
  /** `graph/reset` with `{dryRun?}` → `{version, unmounted, remounted, provided, written}`: back to the scene's start. */
  reset: ({ dryRun, ...options } = {}) => ['graph/reset', dryRun ? { dryRun: true } : {}, options],
  /** `view/controls` → `{path, controls, version}`: the view's buttons, fields, toggles, steppers, pickers and links. */
  controls: (path, options) => ['view/controls', { path }, options],
  /** `view/tap` → `{version}`: presses the button (or navigation link) labelled `label`. */
  tap: (path, label, options) => ['view/tap', { path, label }, options],
  /** `view/input` → `{version}`: writes `value` through the binding of the control labelled `label`. */
  input: (path, label, value, options) => ['view/input', { path, label, value }, options],
  /** `daemon/info` → the daemon's build, pid, uptime, socket, data directory, durability, counts and memory. */
  daemonInfo: (options) => ['daemon/info', {}, options],
  /** `daemon/clients` → `{clients}`: each connection's id, pid, uid, name, watches, views and unsent output. */
  daemonClients: (options) => ['daemon/clients', {}, options],
  /** `rpc.discover` → the OpenRPC document. */
  discover: (options) => ['rpc.discover', {}, options],
  /** `graph/explain` → the cause and effect of commit `version`: `{version, cause, nodes, edges}`. */
  explain: (version, options) => ['graph/explain', { version }, options],
});

for (const [name, build] of Object.entries(REQUESTS)) {
  // A method like those of the class: named, not enumerable.
  const method = { [name](...args) { return this.request(...build(...args)); } }[name];
  Object.defineProperty(Client.prototype, name, { value: method, writable: true, configurable: true });
}

/**
 * `error` with the stack of the call that failed (`callerStack`, from `Error.captureStackTrace`)
 * in place of the frames of the socket's data handler that rejected it, so that a failed
 * `await client.get(...)` points at the line that awaited it.
 */
function withCallerStack(error, callerStack) {
  if (!(error instanceof Error) || typeof callerStack !== 'string') return error;
  const frames = callerStack.split('\n').slice(1).join('\n');
  error.stack = `${error.name}: ${error.message}\n${frames}`;
  return error;
}

