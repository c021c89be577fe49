// One connection of a conformance case, and the strict reading of what the daemon writes on it.

import net from 'node:net';
import { LineDecoder } from '../framing.js';
import { parseExact } from '../exact-json.js';
import { WireChecks } from './wire-checks.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * One connection of a case: what it received — lines (as bytes) and its close — in order,
 * and the checks (`checks`, a WireChecks) of what crosses it.
 */
export class Connection {
  #events = [];
  #waiter = null;
  #peerClosed = false;

  /** Connects; `redaction` is the case's shared Redaction. */
  static open(socketPath, redaction) {
    return new Promise((resolve, reject) => {
      const socket = net.createConnection(socketPath);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new Connection(socket, new WireChecks(redaction)));
      });
    });
  }

  constructor(socket, checks) {
    this.socket = socket;
    this.checks = checks;
    // Raw lines (bytes), so that invalid UTF-8 or a \r from the daemon is caught, not repaired.
    const decoder = new LineDecoder((line) => this.#push({ line }), { raw: true });
    socket.on('data', (chunk) => decoder.push(chunk));
    socket.on('error', () => {}); // a write after the daemon closed, or a reset: the close event follows
    socket.on('close', () => {
      this.#peerClosed = true;
      this.#push({ closed: true });
    });
  }

  #push(event) {
    this.#events.push(event);
    this.#waiter?.();
  }

  /** The next event — `{line}` or `{closed: true}` — or null if none comes within `ms`. */
  async next(ms) {
    if (this.#events.length === 0) {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.#waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#waiter = null;
    }
    const event = this.#events[0];
    if (event === undefined) return null;
    if (!event.closed) this.#events.shift(); // a close stays: every later read sees it
    return event;
  }

  /** A line that has arrived and no step read, if any (after letting pending reads through). */
  async unread() {
    await new Promise((resolve) => setImmediate(resolve));
    return this.#events.find((event) => !event.closed)?.line;
  }

  write(bytes) {
    this.checks.sent(bytes);
    return new Promise((resolve) => {
      // A daemon that closed its end is noticed when reading, as the Python runner does.
      if (this.socket.destroyed || this.socket.writableEnded) resolve();
      else this.socket.write(bytes, () => resolve());
    });
  }

  /** Half-closes and waits until the daemon closes its end too; false if it does not within `ms`. */
  async closeAndDrain(ms) {
    if (!this.#peerClosed) {
      const closed = new Promise((resolve) => this.socket.once('close', resolve));
      this.socket.end();
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, ms))]);
    }
    this.socket.destroy();
    return this.#peerClosed;
  }
}

/** Decodes and parses one received line, refusing what the daemon must never write (SPEC §1.3, §1.4). */
export function received(bytes) {
  let text;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new Error(`the daemon wrote invalid UTF-8: ${bytes.subarray(0, 200).toString('hex')}`);
  }
  if (text.endsWith('\r')) throw new Error(`the daemon wrote a \\r before \\n: ${text.slice(0, 200)}`);
  try {
    return { text, value: parseExact(text) };
  } catch (error) {
    throw new Error(`the daemon wrote a line that is not strict JSON (${error.message}): ${text.slice(0, 500)}`);
  }
}
