// Reconnection: watches resume with sinceVersion (nothing lost, nothing twice), or resync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, ConnectionLost, TimeoutError, UnknownPath } from '../index.js';
import { clientFor, daemonFor, needsDaemon, take } from '../testing/helpers.js';
import { fakeServer } from '../testing/fake-server.js';

const FAST = { initialDelay: 10, maxDelay: 20 };
const within = (ms = 3000) => ({ signal: AbortSignal.timeout(ms) });

/**
 * Drops `client`'s connection and keeps it from reconnecting — the socket file is moved
 * away, the daemon still listens — until the returned function is called.
 */
async function dropAndHold(client, daemon) {
  renameSync(daemon.socketPath, `${daemon.socketPath}.away`);
  const disconnected = once(client, 'disconnect', within());
  client.socket.destroy();
  await disconnected;
  return () => renameSync(`${daemon.socketPath}.away`, daemon.socketPath);
}

/**
 * A client that reconnects (FAST) to a fake server for test `t`, connected: the server, its
 * first connection (the handshake answered with `handshake`'s options) and the client.
 */
async function reconnectingToFake(t, handshake) {
  const server = await fakeServer(t);
  const connecting = connect({ socketPath: server.socketPath, reconnect: FAST });
  const first = await server.accept();
  await first.handshake(handshake);
  const client = await connecting;
  t.after(() => client.close());
  return { server, first, client };
}

test('a dropped connection resumes its watches: what changed meanwhile arrives once, in order', needsDaemon, async (t) => {
  const daemon = await daemonFor(t);
  const client = await clientFor(t, daemon, { reconnect: FAST });
  const other = await clientFor(t, daemon);
  const watch = await client.watch({ paths: ['theme'] });
  const iterator = watch[Symbol.asyncIterator]();
  await client.set('theme.accentColor', 'a');
  assert.equal((await take(iterator, 1))[0].params.version, 2);

  const release = await dropAndHold(client, daemon);
  assert.equal(client.state, 'reconnecting');
  await other.set('theme.accentColor', 'b');
  await other.set('theme.accentColor', 'c');
  await other.set('theme.colorScheme', 'dark');
  const queued = client.set('theme.fontScale', 2); // sent once the watch is resumed
  const reconnected = once(client, 'reconnect', within());
  release();
  const [info] = await reconnected;
  assert.equal(info.restarted, false);
  assert.equal(info.instance, client.instance);
  assert.deepEqual(await queued, { version: 6 });

  const notifications = await take(iterator, 4);
  assert.deepEqual(
    notifications.map(({ method, params }) => [method, params.version, params.changes]),
    [
      ['graph/didChange', 3, [{ path: 'theme.accentColor', value: 'b' }]],
      ['graph/didChange', 4, [{ path: 'theme.accentColor', value: 'c' }]],
      ['graph/didChange', 5, [{ path: 'theme.colorScheme', value: 'dark' }]],
      ['graph/didChange', 6, [{ path: 'theme.fontScale', value: 2 }]],
    ],
  );
  assert.equal(watch.version, 6);
});

test('a drop in the middle of a version: the replay drops what was delivered before', async (t) => {
  const { server, first, client } = await reconnectingToFake(t);
  const watching = client.watch({ views: ['/App'] });
  const request = await first.read();
  assert.deepEqual(request.params, { views: ['/App'] });
  const note = (watch, version, path) =>
    `${JSON.stringify({ jsonrpc: '2.0', method: 'view/didUpdate', params: { watch, version, path, reasons: ['@self'], body: [] } })}\n`;
  await first.write(`{"jsonrpc":"2.0","id":${request.id},"result":{"watch":1,"version":1}}\n`);
  const watch = await watching;
  const iterator = watch[Symbol.asyncIterator]();
  // Version 2 complete, then two of version 3's three notifications, then the drop.
  await first.write(note(1, 2, '/App/A') + note(1, 3, '/App/A') + note(1, 3, '/App/B'));
  assert.deepEqual((await take(iterator, 3)).map((n) => [n.params.version, n.params.path]), [[2, '/App/A'], [3, '/App/A'], [3, '/App/B']]);
  first.socket.destroy();

  const second = await server.accept();
  await second.handshake();
  const resume = await second.read();
  assert.equal(resume.method, 'watch');
  assert.deepEqual(resume.params, { views: ['/App'], sinceVersion: 2 });
  await second.write(
    `{"jsonrpc":"2.0","id":${resume.id},"result":{"watch":1,"version":4}}\n` +
      note(1, 3, '/App/A') + note(1, 3, '/App/B') + note(1, 3, '/App/C') + note(1, 4, '/App/A'),
  );
  assert.deepEqual((await take(iterator, 2)).map((n) => [n.params.version, n.params.path]), [[3, '/App/C'], [4, '/App/A']]);
  assert.equal(watch.version, 4);
});

// A reconnect attempt to a new daemon resyncs the theme watch, then breaks; the next attempt
// reaches that new daemon, or the old one back again.
for (const third of ['new', 'old']) {
  test(`an attempt cut short on a new instance, then the ${third} one: each watch resumes only on its own instance`, async (t) => {
    const { server, first, client } = await reconnectingToFake(t, { instance: 'old' });
    const answer = async (peer, watch, version) => {
      const request = await peer.read();
      await peer.write(`{"jsonrpc":"2.0","id":${request.id},"result":{"watch":${watch},"version":${version}}}\n`);
      return request.params;
    };
    const watching = [client.watch({ paths: ['theme'] }), client.watch({ paths: ['login'] })];
    await answer(first, 1, 7);
    await answer(first, 2, 7);
    const [theme, login] = await Promise.all(watching);
    const resyncs = [];
    theme.on('resync', (info) => resyncs.push(['theme', info]));
    login.on('resync', (info) => resyncs.push(['login', info]));
    first.socket.destroy();

    const second = await server.accept();
    await second.handshake({ instance: 'new' });
    assert.deepEqual(await answer(second, 1, 1), { paths: ['theme'] });
    await second.read(); // the login watch, never answered
    second.socket.destroy();

    // The theme watch counts the new daemon's versions now, the login watch still the old one's.
    const last = await server.accept();
    await last.handshake({ instance: third });
    const reconnected = once(client, 'reconnect', within());
    if (third === 'new') {
      assert.deepEqual(await answer(last, 1, 1), { paths: ['theme'], sinceVersion: 1 });
      assert.deepEqual(await answer(last, 2, 1), { paths: ['login'] });
    } else {
      assert.deepEqual(await answer(last, 1, 7), { paths: ['theme'] });
      assert.deepEqual(await answer(last, 2, 7), { paths: ['login'], sinceVersion: 7 });
    }
    const [info] = await reconnected;
    assert.equal(info.restarted, true, 'a watch was made afresh');
    assert.deepEqual(resyncs, [
      ['theme', { reason: 'restarted', instance: 'new', version: 1 }],
      third === 'new'
        ? ['login', { reason: 'restarted', instance: 'new', version: 1 }]
        : ['theme', { reason: 'restarted', instance: 'old', version: 7 }],
    ]);
  });
}

test('a watch whose answer comes after it timed out is ended, not left sending', async (t) => {
  const { first, client } = await reconnectingToFake(t);
  const watching = assert.rejects(client.watch({ paths: ['theme'] }, { timeout: 20 }), TimeoutError);
  const request = await first.read();
  await watching;
  await first.write(`{"jsonrpc":"2.0","id":${request.id},"result":{"watch":4,"version":1}}\n`);
  let timer;
  const unwatch = await Promise.race([
    first.read(),
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no unwatch came')), 3000))),
  ]).finally(() => clearTimeout(timer));
  assert.equal(unwatch.method, 'unwatch');
  assert.deepEqual(unwatch.params, { watch: 4 });
});

test('connection/dropped is the reason a dropped connection gives', async (t) => {
  const { first, client } = await reconnectingToFake(t);
  const inFlight = client.get('login.email');
  await first.read();
  const disconnected = once(client, 'disconnect', within());
  const said = 'dropped: its unsent output passed the hard limit of 33554432 bytes';
  await first.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'connection/dropped', params: { reason: 'slowConsumer', message: said, pendingBytes: 1 } })}\n`);
  first.socket.destroy();
  const [lost] = await disconnected;
  assert.ok(lost instanceof ConnectionLost);
  assert.equal(lost.message, `The connection to milieud was lost: ${said} (slowConsumer)`);
  await assert.rejects(inFlight, (error) => error instanceof ConnectionLost && error.message.includes(said));
});

test('requests in flight when the connection drops fail with ConnectionLost; later ones go through', async (t) => {
  const { server, first, client } = await reconnectingToFake(t);
  const inFlight = assert.rejects(client.get('login.email'), ConnectionLost);
  await first.read();
  first.socket.destroy();
  await inFlight;
  const later = client.get('theme.accentColor');
  const second = await server.accept();
  await second.handshake();
  const request = await second.read();
  assert.equal(request.params.path, 'theme.accentColor');
  await second.write(`{"jsonrpc":"2.0","id":${request.id},"result":"blue"}\n`);
  assert.equal(await later, 'blue');
});

test('history compacted meanwhile: the watch is made afresh and resync is emitted', needsDaemon, async (t) => {
  const daemon = await daemonFor(t, ['--history', '2']);
  const client = await clientFor(t, daemon, { reconnect: FAST });
  const other = await clientFor(t, daemon);
  const watch = await client.watch({ paths: ['theme'] });
  const iterator = watch[Symbol.asyncIterator]();
  const release = await dropAndHold(client, daemon);
  for (const color of ['a', 'b', 'c', 'd']) await other.set('theme.accentColor', color);
  const resync = once(watch, 'resync', within());
  const reconnected = once(client, 'reconnect', within());
  release();
  await reconnected;
  assert.deepEqual((await resync)[0], { reason: 'compacted', oldest: 4, version: 5 });
  await client.set('theme.fontScale', 2);
  const [marker, live] = await take(iterator, 2);
  assert.deepEqual(marker, { method: 'resync', params: { reason: 'compacted', oldest: 4, version: 5 } });
  assert.equal(live.params.version, 6);
  assert.equal(await client.get('theme.accentColor'), 'd');
});

test('a restarted daemon: reconnect to the new instance, and resync every watch', needsDaemon, async (t) => {
  const daemon = await daemonFor(t);
  const client = await clientFor(t, daemon, { reconnect: FAST });
  const before = client.instance;
  const watch = await client.watch({ paths: ['theme'] });
  const iterator = watch[Symbol.asyncIterator]();
  await client.set('theme.accentColor', 'red');
  assert.equal((await take(iterator, 1))[0].params.version, 2);
  const resync = once(watch, 'resync', within(5000));
  const reconnected = once(client, 'reconnect', within(5000));
  await daemon.restart();
  const [info] = await reconnected;
  assert.equal(info.restarted, true);
  assert.notEqual(client.instance, before);
  assert.deepEqual((await resync)[0], { reason: 'restarted', instance: client.instance, version: 1 });
  assert.equal(await client.get('theme.accentColor'), 'blue');
  await client.set('theme.accentColor', 'green');
  const [marker, live] = await take(iterator, 2);
  assert.equal(marker.method, 'resync');
  assert.deepEqual(live.params, { watch: 1, version: 2, changes: [{ path: 'theme.accentColor', value: 'green' }] });
});

test('a restarted daemon with saved state: the same instance, and the watch resumes with what it missed', needsDaemon, async (t) => {
  const data = mkdtempSync(path.join(os.tmpdir(), 'milieu-node-data-'));
  t.after(() => rmSync(data, { recursive: true, force: true }));
  const daemon = await daemonFor(t, ['--data-dir', data]);
  const client = await clientFor(t, daemon, { reconnect: FAST });
  const before = client.instance;
  const watch = await client.watch({ paths: ['theme'] });
  const iterator = watch[Symbol.asyncIterator]();
  await client.set('theme.accentColor', 'red');
  const seen = (await take(iterator, 1))[0].params.version;
  // The client is away (it cannot reconnect); the daemon takes a change it misses, then restarts.
  await dropAndHold(client, daemon);
  const away = `${daemon.socketPath}.away`;
  const other = await connect({ socketPath: away });
  await other.set('theme.accentColor', 'green');
  other.close();
  const reconnected = once(client, 'reconnect', within(5000));
  await daemon.restart();
  rmSync(away, { force: true });
  const [info] = await reconnected;
  assert.equal(info.restarted, false);
  assert.equal(client.instance, before);
  const [missed] = await take(iterator, 1);
  assert.equal(missed.params.version, seen + 1);
  assert.deepEqual(missed.params.changes, [{ path: 'theme.accentColor', value: 'green' }]);
  await client.set('theme.accentColor', 'blue');
  assert.equal((await take(iterator, 1))[0].params.version, seen + 2, 'versions continue after the restart');
});

test('a restart that drops a retained view: initialize, reconnect and daemonInfo say what was dropped', needsDaemon, async (t) => {
  const data = mkdtempSync(path.join(os.tmpdir(), 'milieu-node-data-'));
  t.after(() => rmSync(data, { recursive: true, force: true }));
  const scene = path.join(data, 'form.json');
  writeFileSync(scene, JSON.stringify({ views: [{ parent: '/App', name: 'Form', state: { toggle: false } }] }));
  const daemon = await daemonFor(t, ['--data-dir', data, '--scene', scene]);
  const client = await clientFor(t, daemon, { reconnect: FAST });
  await client.mount({ parent: '/App/Form', name: 'Extra', retain: true, state: { n: 1 } });
  assert.equal(client.restore, undefined, 'nothing was dropped at its start');
  const reconnected = once(client, 'reconnect', within(5000));
  await daemon.restart(['--data-dir', data]); // the default scene: no /App/Form
  const [info] = await reconnected;
  const reason = 'UnknownPath: unknown path /App/Form: no view is mounted there to be the parent';
  const expected = { types: 0, views: 0, values: 0, dropped: [{ kind: 'view', name: '/App/Form/Extra', reason }], droppedCount: 1 };
  assert.deepEqual(info.restore, expected);
  assert.deepEqual(client.restore, expected);
  assert.deepEqual((await client.daemonInfo()).restore, expected);
});

test('a restarted daemon whose kept history is too short: the watch resyncs as compacted', needsDaemon, async (t) => {
  const data = mkdtempSync(path.join(os.tmpdir(), 'milieu-node-data-'));
  t.after(() => rmSync(data, { recursive: true, force: true }));
  const daemon = await daemonFor(t, ['--data-dir', data, '--history', '1']);
  const client = await clientFor(t, daemon, { reconnect: FAST });
  const watch = await client.watch({ paths: ['theme'] });
  // Away: the socket file is moved, so the client cannot reconnect until the daemon restarts.
  await dropAndHold(client, daemon);
  const away = `${daemon.socketPath}.away`;
  const other = await connect({ socketPath: away });
  for (const color of ['red', 'green', 'yellow']) await other.set('theme.accentColor', color);
  other.close();
  const resync = once(watch, 'resync', within(5000));
  await daemon.restart();
  rmSync(away, { force: true });
  const [marker] = await resync;
  assert.equal(marker.reason, 'compacted');
  assert.equal(await client.get('theme.accentColor'), 'yellow');
});

test('a watch whose @State went with the old connection ends with the error; a view watch follows its path', needsDaemon, async (t) => {
  const daemon = await daemonFor(t);
  const client = await clientFor(t, daemon, { reconnect: FAST });
  await client.mount({ parent: '/App', name: 'Mine', retain: false, state: { n: 0 } });
  await client.mount({ parent: '/App', name: 'Kept', retain: true });
  const mine = await client.watch({ paths: ['/App/Mine.n'] });
  const kept = await client.watch({ views: ['/App/Kept'] });
  const place = await client.watch({ views: ['/App/Mine'] });
  const unmounted = once(place, 'didUnmount', within());
  const ended = once(mine, 'end', within());
  const reconnected = once(client, 'reconnect', within());
  client.socket.destroy();
  await reconnected;
  const [error] = await ended;
  assert.ok(error instanceof UnknownPath);
  assert.equal(mine.ended, true);
  await assert.rejects(mine[Symbol.asyncIterator]().next(), UnknownPath);
  assert.equal(kept.ended, false);
  const [gone] = await unmounted;
  assert.deepEqual([gone.path, gone.reason], ['/App/Mine', 'connectionClosed']);
  assert.deepEqual([place.ended, place.notMounted], [false, ['/App/Mine']]);
});

test('reconnecting gives up after maxAttempts: pending calls and watches fail, close is emitted', needsDaemon, async (t) => {
  const daemon = await daemonFor(t);
  const client = await connect({ socketPath: daemon.socketPath, reconnect: { initialDelay: 5, maxDelay: 10, maxAttempts: 3 } });
  const watch = await client.watch({ lifecycle: true });
  const iterator = watch[Symbol.asyncIterator]();
  const closed = once(client, 'close', within());
  await dropAndHold(client, daemon);
  const queued = assert.rejects(client.get('login.email'), ConnectionLost);
  const ended = assert.rejects(iterator.next(), ConnectionLost);
  const [error] = await closed;
  assert.ok(error instanceof ConnectionLost);
  assert.match(error.message, /in 3 attempts/);
  await Promise.all([queued, ended]);
  assert.equal(client.state, 'closed');
});

test('a watch unwatched while reconnecting is not resumed, and its iterator ends', async (t) => {
  const { server, first, client } = await reconnectingToFake(t);
  const watching = client.watch({ lifecycle: true });
  const request = await first.read();
  await first.write(`{"jsonrpc":"2.0","id":${request.id},"result":{"watch":1,"version":1}}\n`);
  const watch = await watching;
  const iterator = watch[Symbol.asyncIterator]();
  const disconnected = once(client, 'disconnect', within());
  first.socket.destroy();
  await disconnected;
  const unwatched = watch.unwatch();
  const second = await server.accept();
  await second.handshake();
  assert.deepEqual(await unwatched, {});
  assert.deepEqual(await iterator.next(), { value: undefined, done: true });
  const reading = client.get('theme.accentColor');
  const next = await second.read();
  assert.equal(next.method, 'graph/get');
  await second.write(`{"jsonrpc":"2.0","id":${next.id},"result":"blue"}\n`);
  assert.equal(await reading, 'blue');
});
