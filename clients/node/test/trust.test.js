// The client trusts only its own daemon: a socket in a directory another uid
// owns, or anyone may write to, is refused before a byte is sent (issue #15, item 12).
// Node has no SO_PEERCRED: the directory is all that is checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, ConnectionLost } from '../index.js';

/** A fake server in a fresh directory with `mode` (and `owner`), recording every byte it is sent. */
async function squatted(t, mode, owner) {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'milieu-trust-'));
  const directory = path.join(parent, 'milieu-squat');
  mkdirSync(directory);
  const socketPath = path.join(directory, 'milieu.sock');
  const server = { connections: 0, received: [] };
  const listener = net.createServer((socket) => {
    server.connections += 1;
    socket.on('data', (chunk) => server.received.push(chunk));
    socket.on('error', () => {});
  });
  await new Promise((resolve) => listener.listen(socketPath, resolve));
  chmodSync(directory, mode);
  if (owner !== undefined) chownSync(directory, owner, -1);
  t.after(async () => {
    await new Promise((resolve) => listener.close(resolve));
    rmSync(parent, { recursive: true, force: true });
  });
  return { directory, socketPath, server };
}

async function refused(socketPath) {
  let error;
  await assert.rejects(connect({ socketPath, timeout: 2000, reconnect: false }), (e) => {
    error = e;
    return e instanceof ConnectionLost;
  });
  await new Promise((resolve) => setTimeout(resolve, 100)); // time for a stray connection to arrive
  return error.message;
}

test('a world-writable socket directory is refused before a byte is sent', async (t) => {
  const { directory, socketPath, server } = await squatted(t, 0o777);
  const message = await refused(socketPath);
  assert.match(message, new RegExp(`^refusing ${socketPath}: its directory ${directory} has mode 0777`));
  assert.match(message, /MILIEU_SOCKET/);
  assert.equal(server.connections, 0);
  assert.deepEqual(server.received, []);
});

test('a socket directory of another uid is refused before a byte is sent', { skip: process.geteuid() !== 0 && 'chown to another uid needs root' }, async (t) => {
  const { directory, socketPath, server } = await squatted(t, 0o700, 65534);
  const message = await refused(socketPath);
  assert.equal(message, `refusing ${socketPath}: its directory ${directory} belongs to uid 65534, not to you (uid 0); remove it or set MILIEU_SOCKET`);
  assert.equal(server.connections, 0);
  assert.deepEqual(server.received, []);
});

const REFUSAL =
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32011,"message":"connections from uid 1001 are refused: ' +
  'milieud serves only its own user","data":{"reason":"peer","kind":"Forbidden"}}}\n';

test("a refused connection rejects with the daemon's Forbidden, not EPIPE", async (t) => {
  // What milieud does for another user's connection (SPEC §1.2): one error line at once, then the close.
  const directory = mkdtempSync(path.join(os.tmpdir(), 'milieu-refuse-'));
  const socketPath = path.join(directory, 'milieu.sock');
  const listener = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.write(REFUSAL, () => socket.destroy());
  });
  await new Promise((resolve) => listener.listen(socketPath, resolve));
  t.after(async () => {
    await new Promise((resolve) => listener.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });
  // Ten times: the close may come before or after the client has written initialize.
  for (let attempt = 0; attempt < 10; attempt++) {
    await assert.rejects(connect({ socketPath, timeout: 2000, reconnect: false }), (error) => {
      assert.equal(error.kind, 'Forbidden');
      assert.match(error.message, /milieud serves only its own user/);
      return true;
    });
  }
});
