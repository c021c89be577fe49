// A watch (SPEC §11): the notifications of one `watch` request, as events and as an async iterator.

import { EventEmitter } from 'node:events';

/** The event each daemon notification is emitted as, besides 'notification'. */
const EVENT_OF_METHOD = Object.freeze({
  'graph/didChange': 'didChange',
  'view/didUpdate': 'didUpdate',
  'view/didMount': 'didMount',
  'view/didUnmount': 'didUnmount',
  'object/didCreate': 'objectCreated',
  'object/didDestroy': 'objectDestroyed',
  diagnostic: 'diagnostic',
  'graph/didCommit': 'didCommit',
});

const NOTIFICATION_EVENTS = new Set([...Object.values(EVENT_OF_METHOD), 'notification']);

/**
 * The notifications of one watch, in version order, none twice and none
 * skipped — across reconnections too: the client resumes the watch with
 * `sinceVersion` and drops what the replay repeats. When that is impossible (the
 * history was compacted, or the daemon restarted) the watch is made afresh and
 * 'resync' is emitted: re-read what you display.
 *
 * Use it as an async iterator (`for await (const {method, params} of watch)`,
 * a resync arrives as `{method: 'resync', params}`), or through events:
 * 'didChange', 'didUpdate', 'didMount', 'didUnmount', 'objectCreated',
 * 'objectDestroyed', 'diagnostic', 'didCommit' (each with the notification's params),
 * 'notification' (every daemon notification, `{method, params}`), 'resync'
 * (`{reason, version, ...}`) and 'end' (the error that ended it, if any).
 *
 * Notifications are first emitted on the turn of the event loop after the watch
 * is returned, so listeners attached right after `await client.watch(...)` see
 * them all. The iterator buffers every notification from the start, unless
 * notification listeners are attached before any iteration begins: then only
 * events are used and nothing is buffered.
 */
export class Watch extends EventEmitter {
  #unwatch;
  #params;
  #id;
  #notMounted;
  /** The daemon instance the watch was last made on: its versions are that instance's. */
  #instance;
  /** Every version up to this one has been delivered in full. */
  #since;
  /** The latest version delivered, perhaps in part, and how many of its notifications. */
  #partialVersion = 0;
  #partialCount = 0;
  /** After a resume: notifications of `version` still to drop, as already delivered. */
  #skip = null;
  /** Notifications that arrived before the watch was handed out; null once released. */
  #held = [];
  #queue = [];
  #waiters = [];
  #buffering = true;
  #iterating = false;
  #ended = false;
  #endError = null;

  /**
   * Made by `Client.watch`, not directly.
   * @param {(watch: Watch) => Promise<object>} unwatch
   * @param {object} params the watch's targets, without `sinceVersion`
   * @param {{watch: number, version: number, notMounted?: string[]}} result the response to `watch`
   * @param {string} instance the daemon instance that answered
   * @param {number} [sinceVersion] the `sinceVersion` it was made with
   */
  constructor(unwatch, params, result, instance, sinceVersion) {
    super();
    this.#unwatch = unwatch;
    this.#params = Object.freeze({ ...params });
    this.#id = result.watch;
    this.#instance = instance;
    this.#notMounted = Object.freeze([...(result.notMounted ?? [])]);
    this.#since = sinceVersion ?? result.version;
    this.on('newListener', (event) => {
      if (NOTIFICATION_EVENTS.has(event) && !this.#iterating) {
        this.#buffering = false;
        this.#queue = [];
      }
    });
    setImmediate(() => this.#release());
  }

  /** The daemon's id of this watch on the current connection; it changes when the client reconnects. */
  get id() {
    return this.#id;
  }

  /** The targets: `{paths?, views?, lifecycle?, commits?, printChanges?}`. */
  get params() {
    return this.#params;
  }

  /** The view targets no view was mounted at when the watch was last made: it delivers for them once one is. */
  get notMounted() {
    return this.#notMounted;
  }

  /** The latest version this watch has delivered a notification of, or covered since it was made. */
  get version() {
    return Math.max(this.#since, this.#partialVersion);
  }

  /** True once unwatched, or once its client is closed. */
  get ended() {
    return this.#ended;
  }

  /** Ends the watch (`unwatch`); the iterator finishes after the notifications received before. */
  unwatch() {
    return this.#unwatch(this);
  }

  [Symbol.asyncIterator]() {
    this.#iterating = true;
    this.#buffering = true;
    const iterator = {
      next: () => {
        if (this.#queue.length > 0) return Promise.resolve({ value: this.#queue.shift(), done: false });
        if (this.#ended) return this.#endError ? Promise.reject(this.#endError) : Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
      },
      return: () => {
        this.#iterating = false;
        this.#buffering = false;
        this.#queue = [];
        this.#settleWaiters();
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  // The methods below are the client's side of the watch; they are not public API.

  /** The daemon instance whose versions this watch counts in. */
  get _instance() {
    return this.#instance;
  }

  /** A notification addressed to this watch arrived. */
  _receive(method, params) {
    if (this.#ended) return;
    const version = params.version;
    if (this.#skip !== null) {
      if (version === this.#skip.version && this.#skip.count > 0) {
        this.#skip.count -= 1;
        return;
      }
      this.#skip = null;
    }
    if (Number.isInteger(version)) {
      if (version > this.#partialVersion) {
        // Notifications of a version precede everything about later ones (SPEC §8.3).
        if (this.#partialCount > 0) this.#since = Math.max(this.#since, this.#partialVersion);
        this.#partialVersion = version;
        this.#partialCount = 1;
      } else if (version === this.#partialVersion) {
        this.#partialCount += 1;
      }
    }
    this.#dispatch({ method, params });
  }

  /**
   * The `watch` params that resume this watch with nothing lost or repeated:
   * `sinceVersion` is the last version delivered in full; notifications of a
   * version delivered only in part are replayed and the first `skip.count`
   * dropped (their order within a version is fixed, SPEC §8.3).
   */
  _resumePoint() {
    const partial = this.#partialCount > 0 && this.#partialVersion > this.#since;
    return {
      params: { ...this.#params, sinceVersion: partial ? this.#partialVersion - 1 : this.#since },
      skip: partial ? { version: this.#partialVersion, count: this.#partialCount } : null,
    };
  }

  /** The watch was resumed on a new connection under a new id. */
  _rebind(result, skip) {
    this.#id = result.watch;
    this.#notMounted = Object.freeze([...(result.notMounted ?? [])]);
    this.#skip = skip === null ? null : { ...skip };
  }

  /** The watch was made afresh on `instance` (history compacted, or a new daemon); what it had delivered may be stale. */
  _resync(result, instance, info) {
    this.#id = result.watch;
    this.#instance = instance;
    this.#notMounted = Object.freeze([...(result.notMounted ?? [])]);
    this.#since = result.version;
    this.#partialVersion = 0;
    this.#partialCount = 0;
    this.#skip = null;
    this.#dispatch({ method: 'resync', params: { ...info, version: result.version } });
  }

  /** No more notifications will come: unwatched, client closed, or (with `error`) the watch could not go on. */
  _end(error = null) {
    if (this.#ended) return;
    this.#release();
    this.#ended = true;
    this.#endError = error;
    this.#settleWaiters();
    this.#emit('end', error ?? undefined);
  }

  #dispatch(item) {
    if (this.#held !== null) this.#held.push(item);
    else this.#deliver(item);
  }

  #release() {
    const held = this.#held;
    if (held === null) return;
    this.#held = null;
    for (const item of held) this.#deliver(item);
  }

  #deliver(item) {
    if (this.#buffering) {
      const waiter = this.#waiters.shift();
      if (waiter) waiter.resolve({ value: item, done: false });
      else this.#queue.push(item);
    }
    if (item.method === 'resync') {
      this.#emit('resync', item.params);
      return;
    }
    const event = EVENT_OF_METHOD[item.method];
    if (event !== undefined) this.#emit(event, item.params);
    this.#emit('notification', item);
  }

  #settleWaiters() {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) {
      if (this.#endError) waiter.reject(this.#endError);
      else waiter.resolve({ value: undefined, done: true });
    }
  }

  /** Emits without letting a throwing listener break the client's reading of the socket. */
  #emit(event, argument) {
    try {
      this.emit(event, argument);
    } catch (error) {
      process.nextTick(() => {
        throw error;
      });
    }
  }
}
