// Shared by the tests: daemons, clients and waiting for notifications.

import { connect } from '../index.js';
import { Daemon, findMilieud } from '../lib/daemon.js';

export const MILIEUD = findMilieud();

/** Skips a test file's tests when no daemon binary is available. */
export const needsDaemon = MILIEUD ? {} : { skip: 'no milieud: set MILIEUD' };

/** A fresh milieud for test `t`, stopped when the test ends. */
export async function daemonFor(t, args = []) {
  const daemon = await Daemon.start({ milieud: MILIEUD, args });
  t.after(() => daemon.stop());
  return daemon;
}

/** A client of `daemon` for test `t`, closed when the test ends. */
export async function clientFor(t, daemon, options = {}) {
  const client = await connect({ socketPath: daemon.socketPath, ...options });
  t.after(() => client.close());
  return client;
}

/**
 * The next `count` items of an async iterator, failing after `ms` — the items
 * that came, and the count, are in the error.
 */
export async function take(iterator, count, ms = 3000) {
  const items = [];
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`got ${items.length} of ${count} items within ${ms} ms: ${JSON.stringify(items)}`)), ms);
  });
  try {
    while (items.length < count) {
      const next = await Promise.race([iterator.next(), timeout]);
      if (next.done) throw new Error(`the iterator ended after ${items.length} of ${count} items: ${JSON.stringify(items)}`);
      items.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
  return items;
}
