// The client trusts only its own daemon (SPEC §1.2): a socket another user could
// replace, or whose file another user owns, is refused before a byte is sent (issue #15
// item 12, issue #26 items 13 and 14); one's own socket in a sticky directory such as
// /tmp is used (issue #30 item 7). Node has no SO_PEERCRED: the socket file's owner
// stands in for the peer's credentials.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { connect, ConnectionLost } from '../index.js';
import { MILIEUD, needsDaemon } from '../testing/helpers.js';

const FIX = 'use a socket in a directory only you or root can change (--socket or MILIEU_SOCKET)';

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
  assert.equal(message, `refusing ${socketPath}: ${directory} has mode 0777: others may write to it and it is not sticky, so they could replace the socket; ${FIX}`);
  assert.equal(server.connections, 0);
  assert.deepEqual(server.received, []);
});

test('a socket directory of another uid is refused before a byte is sent', { skip: process.geteuid() !== 0 && 'chown to another uid needs root' }, async (t) => {
  const { directory, socketPath, server } = await squatted(t, 0o700, 65534);
  const message = await refused(socketPath);
  assert.equal(message, `refusing ${socketPath}: ${directory} belongs to uid 65534, not to you (uid 0) or root, so that user could replace the socket; ${FIX}`);
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

// A fake milieud run as uid 65534: it answers initialize like the real one and prints every
// line it is sent, so that a password a client sends it shows.
const FAKE_DAEMON = `
const net = require('node:net');
const server = net.createServer((socket) => {
  let text = '';
  socket.on('data', (chunk) => {
    text += chunk;
    let end;
    while ((end = text.indexOf('\\n')) >= 0) {
      const line = text.slice(0, end);
      text = text.slice(end + 1);
      process.stdout.write('received ' + line + '\\n');
      const id = JSON.parse(line).id;
      const result = { server: { name: 'milieud', version: '0' }, protocolVersion: '1', instance: 'x', version: 1,
        capabilities: { watch: true, transactions: true, lifecycle: true, resumableWatches: true, maxLineBytes: 1048576 } };
      socket.write(JSON.stringify({ jsonrpc: '2.0', id, result: id === 1 ? result : { version: 2 } }) + '\\n');
    }
  });
});
server.listen(process.argv[1], () => process.stdout.write('listening\\n'));
`;

test("another user's socket moved into one's own private directory is refused before a byte is sent", { skip: process.geteuid() !== 0 && 'running as another uid needs root' }, async (t) => {
  // Issue #26, item 13: Node connected and sent set('login.password', …) to it.
  const parent = mkdtempSync(path.join(os.tmpdir(), 'milieu-foreign-'));
  chmodSync(parent, 0o755); // uid 65534 must reach its own directory inside
  const theirs = path.join(parent, 'theirs');
  const mine = path.join(parent, 'mine');
  mkdirSync(theirs, { mode: 0o777 });
  chmodSync(theirs, 0o777);
  mkdirSync(mine, { mode: 0o700 });
  const child = spawn(process.execPath, ['-e', FAKE_DAEMON, path.join(theirs, 'milieu.sock')], { uid: 65534, gid: 65534 });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.after(async () => {
    child.kill();
    await exited;
    rmSync(parent, { recursive: true, force: true });
  });
  let output = '';
  let errors = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { errors += chunk; });
  for (let waited = 0; !output.includes('listening'); waited += 20) {
    if (child.exitCode !== null || waited > 10000) assert.fail(`the fake daemon did not listen: ${errors}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const socketPath = path.join(mine, 'milieu.sock');
  renameSync(path.join(theirs, 'milieu.sock'), socketPath);
  let client = null;
  await assert.rejects(
    (async () => {
      client = await connect({ socketPath, timeout: 2000, reconnect: false });
      await client.set('login.password', 'hunter2-to-a-stranger');
    })(),
    (error) => {
      assert.ok(error instanceof ConnectionLost, String(error));
      assert.equal(error.message, `refusing ${socketPath}: the socket ${socketPath} belongs to uid 65534, not to you (uid 0), so another user's process serves it; ${FIX}`);
      return true;
    },
  );
  await client?.close();
  await new Promise((resolve) => setTimeout(resolve, 200)); // time for a stray line to arrive
  assert.equal(output, 'listening\n');
});

test("one's own daemon's socket straight in /tmp is used", needsDaemon, async (t) => {
  const socketPath = `/tmp/milieu-node-trust-${process.pid}.sock`;
  const daemon = spawn(MILIEUD, ['--ephemeral', '--socket', socketPath], { stdio: 'ignore' });
  t.after(async () => {
    daemon.kill('SIGTERM');
    await new Promise((resolve) => daemon.once('exit', resolve));
    for (const leftover of [socketPath, `${socketPath}.lock`]) {
      try { unlinkSync(leftover); } catch { /* gone already */ }
    }
  });
  let client = null;
  for (let attempt = 0; client === null && attempt < 500; attempt++) {
    client = await connect({ socketPath, timeout: 2000, reconnect: false }).catch((error) => {
      if (!/ENOENT|ECONNREFUSED/.test(error.message)) throw error;
      return new Promise((resolve) => setTimeout(() => resolve(null), 20));
    });
  }
  t.after(() => client?.close());
  assert.equal(await client.get('theme.colorScheme'), 'light');
});
