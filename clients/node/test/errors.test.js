// Typed errors: every error kind the daemon can send, as its class with its data fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as milieu from '../index.js';
import { errorFromWire } from '../lib/errors.js';
import { clientFor, daemonFor, needsDaemon } from '../testing/helpers.js';

const { ops } = milieu;

/** Asserts that `promise` rejects with an instance of `errorClass` whose fields include `fields`. */
async function rejectsWith(promise, errorClass, fields) {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof errorClass, `${error.name} is not a ${errorClass.name}: ${error.message}`);
    assert.ok(error instanceof milieu.MilieuError);
    for (const [key, value] of Object.entries(fields)) assert.deepEqual(error[key], value, key);
    assert.equal(error.data.kind, error.kind);
    return true;
  });
}

test('EnvironmentObjectMissing names the type, view, variable, searched ancestors and a hint, in SwiftUI words', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await client.mount({ parent: '/App', name: 'Level1' });
  await rejectsWith(
    client.mount({ parent: '/App/Level1', name: 'CheckoutView', environmentObjects: { cart: 'Cart' }, body: ['{cart.items}'] }),
    milieu.EnvironmentObjectMissing,
    {
      code: -32000,
      kind: 'EnvironmentObjectMissing',
      message: 'No ObservableObject of type Cart found. A View.environmentObject(_:) for Cart may be missing as an ancestor of this view.',
      type: 'Cart',
      view: '/App/Level1/CheckoutView',
      variable: 'cart',
      searched: ['/App/Level1/CheckoutView', '/App/Level1', '/App'],
    },
  );
  await assert.rejects(client.mount({ parent: '/App/Level1', name: 'CheckoutView', environmentObjects: { cart: 'Cart' } }), (error) => {
    assert.match(error.hint, /Cart/);
    return true;
  });
});

test('UnknownPath, UnknownType, UnknownAction', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await rejectsWith(client.get('login.emial'), milieu.UnknownPath, { code: -32001, path: 'login.emial' });
  await rejectsWith(client.mount({ parent: '/App', name: 'A', stateObjects: { x: { type: 'Nope' } } }), milieu.UnknownType, { code: -32002, type: 'Nope' });
  await rejectsWith(client.call('login.signIn'), milieu.UnknownAction, { code: -32003, path: 'login.signIn', action: 'signIn', type: 'Login' });
});

test('TypeMismatch, ReadOnly, VersionConflict, InvalidValue', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await rejectsWith(client.set('theme.fontScale', 'big'), milieu.TypeMismatch, { code: -32004, path: 'theme.fontScale', expected: 'double', actual: 'string' });
  await rejectsWith(client.set('login.isValidEmail', true), milieu.ReadOnly, { code: -32005, path: 'login.isValidEmail' });
  await client.set('login.email', 'kim@example.com');
  await rejectsWith(client.set('login.email', 'x', { ifVersion: 1 }), milieu.VersionConflict, { code: -32006, path: 'login.email', expected: 1, actual: 2 });
  await rejectsWith(client.set('theme.fontScale', 5), milieu.InvalidValue, { code: -32012, path: 'theme.fontScale', value: 5 });
});

test('DuplicateView, InvalidDeclaration, InUse', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await client.mount({ parent: '/App', name: 'Shop', stateObjects: { cart: { type: 'Cart' } }, provide: { environmentObjects: ['cart'] } });
  await rejectsWith(client.mount({ parent: '/App', name: 'Shop' }), milieu.DuplicateView, { code: -32007, path: '/App/Shop' });
  await rejectsWith(client.mount({ parent: '/App', name: 'Badge', body: ['{count}'] }), milieu.InvalidDeclaration, { code: -32008, view: '/App/Badge' });
  await client.mount({ parent: '/App/Shop', name: 'List', environmentObjects: { cart: 'Cart' } });
  await rejectsWith(client.provide('/App/Shop', { withdraw: ['Cart'] }), milieu.InUse, {
    code: -32009,
    provided: 'Cart',
    view: '/App/Shop',
    dependents: ['/App/Shop/List'],
  });
});

test('Forbidden for a secure value and for unmounting /App', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await client.set('login.password', 'hunter22');
  await rejectsWith(client.get('login.password'), milieu.Forbidden, { code: -32011, path: 'login.password' });
  await rejectsWith(client.unmount('/App'), milieu.Forbidden, { code: -32011, path: '/App' });
});

test('Compacted when sinceVersion is older than the history', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t, ['--history', '2']));
  for (const color of ['a', 'b', 'c']) await client.set('theme.accentColor', color);
  await rejectsWith(client.watch({ paths: ['theme'], sinceVersion: 1 }), milieu.Compacted, { code: -32013, oldest: 3 });
});

test('LimitExceeded for a transaction of more than 10000 ops', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const tooMany = Array.from({ length: 10001 }, () => ops.set('login.email', 'a'));
  await rejectsWith(client.transaction(tooMany), milieu.LimitExceeded, { code: -32014, limit: 'transactionOps', max: 10000 });
});

test('MessageTooLarge before sending a line over the daemon --max-line; the connection stays', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t, ['--max-line', '200']));
  assert.equal(client.capabilities.maxLineBytes, 200);
  await rejectsWith(client.set('login.email', 'x'.repeat(200)), milieu.MessageTooLarge, { code: -32010, limit: 200 });
  assert.equal(await client.get('login.email'), '');
});

test('standard JSON-RPC errors are ProtocolError', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await rejectsWith(client.request('graph/gte', {}), milieu.ProtocolError, { code: -32601, kind: 'MethodNotFound', method: 'graph/gte' });
  await rejectsWith(client.request('graph/set', { path: 'login.email' }), milieu.ProtocolError, { code: -32602, kind: 'InvalidParams', field: '/value' });
  await rejectsWith(client.request(123, {}), milieu.ProtocolError, { code: -32600, kind: 'InvalidRequest' });
});

test('ConnectionLost when the daemon goes away, without reconnecting', needsDaemon, async (t) => {
  const daemon = await daemonFor(t);
  const client = await clientFor(t, daemon, { reconnect: false });
  const watch = await client.watch({ lifecycle: true });
  const iterator = watch[Symbol.asyncIterator]();
  const ended = assert.rejects(iterator.next(), milieu.ConnectionLost);
  const closed = new Promise((resolve) => client.once('close', resolve));
  process.kill(daemon.pid, 'SIGKILL');
  assert.ok((await closed) instanceof milieu.ConnectionLost);
  await ended;
  assert.equal(client.state, 'closed');
  await assert.rejects(client.get('login.email'), milieu.ConnectionLost);
});

test('errorFromWire: an unknown kind is typed by its code, an unknown code is a MilieuError', () => {
  const future = errorFromWire({ code: -32001, message: 'm', data: { kind: 'UnknownPathV2', path: 'x' } });
  assert.ok(future instanceof milieu.UnknownPath);
  assert.equal(future.kind, 'UnknownPathV2');
  const unknown = errorFromWire({ code: -32050, message: 'm', data: { kind: 'Brand new' } });
  assert.equal(unknown.constructor, milieu.MilieuError);
  assert.equal(unknown.kind, 'Brand new');
  const parse = errorFromWire({ code: -32700, message: 'Parse error', data: { kind: 'ParseError', reason: 'r' } });
  assert.ok(parse instanceof milieu.ProtocolError);
  assert.equal(parse.reason, 'r');
  const bare = errorFromWire({ code: -32603, message: 'Internal error' });
  assert.equal(bare.kind, null);
  assert.deepEqual(bare.data, {});
});

// SPEC §3.2 fixes these data values as enums; milieud sends prose instead (reported).
test('error data uses the SPEC §3.2 enum values', { ...needsDaemon }, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await rejectsWith(client.get('login.password'), milieu.Forbidden, { reason: 'secure' });
  await rejectsWith(client.unmount('/App'), milieu.Forbidden, { reason: 'root' });
  await rejectsWith(client.set('login.isValidEmail', true), milieu.ReadOnly, { reason: 'computed' });
  await rejectsWith(client.set('theme.fontScale', 5), milieu.InvalidValue, { constraint: 'max' });
});
