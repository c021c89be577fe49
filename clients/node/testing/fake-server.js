// A scripted stand-in for milieud on a temporary Unix socket, for framing and failure tests.

import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { LineDecoder } from '../lib/framing.js';

/** A fake server for test `t`: `accept()` resolves to the next connection, as a `Peer`. */
export async function fakeServer(t) {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'milieu-fake-'));
  const socketPath = path.join(directory, 'fake.sock');
  const peers = [];
  const sockets = [];
  const waiting = [];
  const server = net.createServer((socket) => {
    sockets.push(socket);
    const peer = new Peer(socket);
    const waiter = waiting.shift();
    if (waiter) waiter(peer);
    else peers.push(peer);
  });
  await new Promise((resolve) => server.listen(socketPath, resolve));
  t.after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });
  return {
    socketPath,
    accept: () => (peers.length > 0 ? Promise.resolve(peers.shift()) : new Promise((resolve) => waiting.push(resolve))),
  };
}

/** The server's side of one connection: read the client's requests, write anything. */
class Peer {
  #lines = [];
  #waiters = [];

  constructor(socket) {
    this.socket = socket;
    const decoder = new LineDecoder((line) => {
      const waiter = this.#waiters.shift();
      if (waiter) waiter(JSON.parse(line));
      else this.#lines.push(JSON.parse(line));
    });
    socket.on('data', (chunk) => decoder.push(chunk));
    socket.on('error', () => {});
  }

  /** The next message the client sent, parsed. */
  read() {
    return this.#lines.length > 0 ? Promise.resolve(this.#lines.shift()) : new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Writes text or bytes as they are. */
  write(data) {
    return new Promise((resolve) => this.socket.write(data, resolve));
  }

  /** Reads the client's `initialize` and answers it as milieud would. */
  async handshake({ maxLineBytes = 1048576, instance = 'fake-1' } = {}) {
    const request = await this.read();
    if (request.method !== 'initialize') throw new Error(`expected initialize, got ${JSON.stringify(request)}`);
    const result = {
      server: { name: 'milieud', version: 'fake' },
      protocolVersion: '1',
      capabilities: { watch: true, transactions: true, lifecycle: true, resumableWatches: true, maxLineBytes },
      instance,
      version: 1,
    };
    await this.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, result })}\n`);
    return request;
  }
}
