// Notifications: a Watch as an async iterator and as an EventEmitter, against a real milieud.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { clientFor, daemonFor, needsDaemon, take } from '../testing/helpers.js';

/** S2 of semantics.md: StartView (state selectedNum = 10) with ContentView whose state object takes num. */
async function mountStartView(client, { withId }) {
  await client.mount({ parent: '/App', name: 'StartView', state: { selectedNum: 10 }, body: ['selected: {selectedNum}'] });
  await client.mount({
    parent: '/App/StartView',
    name: 'ContentView',
    ...(withId ? { id: { $parent: 'selectedNum' } } : {}),
    inputs: { num: { $parent: 'selectedNum' } },
    stateObjects: { viewModel: { type: 'ViewModel', init: { num: { $input: 'num' } } } },
    body: ['num: {viewModel.num}'],
  });
}

const withoutReason = ({ reason, ...rest }) => rest;

test('the iterator yields every notification of a transaction in SPEC §8.3 order', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await mountStartView(client, { withId: true });
  const watch = await client.watch({ views: ['/App/StartView'], lifecycle: true });
  assert.deepEqual(await client.set('/App/StartView.selectedNum', 11), { version: 4 });
  const notifications = await take(watch[Symbol.asyncIterator](), 7);
  assert.deepEqual(notifications.map((n) => n.method), [
    'graph/didChange',
    'object/didCreate',
    'view/didUnmount',
    'view/didMount',
    'view/didUpdate',
    'view/didUpdate',
    'object/didDestroy',
  ]);
  const [change, created, unmounted, mounted, parent, child, destroyed] = notifications.map((n) => n.params);
  assert.deepEqual(change, { watch: 1, version: 4, changes: [{ path: '/App/StartView.selectedNum', value: 11 }] });
  // The reason of `created` is checked by the next test.
  assert.deepEqual(withoutReason(created), { watch: 1, version: 4, object: 'ViewModel#5', type: 'ViewModel', owner: '/App/StartView/ContentView[11].viewModel' });
  assert.deepEqual(unmounted, { watch: 1, version: 4, path: '/App/StartView/ContentView[10]', reason: 'identity' });
  assert.deepEqual(mounted, { watch: 1, version: 4, path: '/App/StartView/ContentView[11]', reason: 'identity', body: ['num: 11'] });
  assert.deepEqual(parent, { watch: 1, version: 4, path: '/App/StartView', reasons: ['_selectedNum'], body: ['selected: 11'] });
  assert.deepEqual(child, { watch: 1, version: 4, path: '/App/StartView/ContentView[11]', reasons: ['@identity'], body: ['num: 11'] });
  assert.deepEqual(destroyed, {
    watch: 1,
    version: 4,
    object: 'ViewModel#4',
    type: 'ViewModel',
    owner: '/App/StartView/ContentView[10].viewModel',
    reason: 'identity',
  });
  assert.equal(watch.version, 4);
});

// SPEC §10.5 and the note under §10.7: an object made for a view that appeared through an id
// change has reason "identity"; milieud says "stateObject" (reported).
test('object/didCreate after an id change has reason identity', { ...needsDaemon }, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await mountStartView(client, { withId: true });
  const watch = await client.watch({ lifecycle: true });
  const created = once(watch, 'objectCreated', { signal: AbortSignal.timeout(3000) });
  await client.set('/App/StartView.selectedNum', 11);
  assert.equal((await created)[0].reason, 'identity');
});

test('events: one per kind, and notification for all, with the params', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await mountStartView(client, { withId: true });
  const watch = await client.watch({ views: ['/App/StartView'], lifecycle: true });
  const seen = [];
  for (const event of ['didChange', 'didUpdate', 'didMount', 'didUnmount', 'objectCreated', 'objectDestroyed', 'diagnostic']) {
    watch.on(event, (params) => seen.push([event, params.version]));
  }
  const all = [];
  watch.on('notification', (notification) => all.push(notification.method));
  const last = once(watch, 'objectDestroyed', { signal: AbortSignal.timeout(3000) });
  await client.set('/App/StartView.selectedNum', 11);
  await last;
  assert.deepEqual(seen, [
    ['didChange', 4],
    ['objectCreated', 4],
    ['didUnmount', 4],
    ['didMount', 4],
    ['didUpdate', 4],
    ['didUpdate', 4],
    ['objectDestroyed', 4],
  ]);
  assert.deepEqual(all, ['graph/didChange', 'object/didCreate', 'view/didUnmount', 'view/didMount', 'view/didUpdate', 'view/didUpdate', 'object/didDestroy']);
});

test('diagnostic: a dropped @StateObject initialisation is reported to the view watch', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await mountStartView(client, { withId: false });
  const watch = await client.watch({ views: ['/App/StartView'] });
  const diagnostic = once(watch, 'diagnostic', { signal: AbortSignal.timeout(3000) });
  await client.set('/App/StartView.selectedNum', 11);
  const [params] = await diagnostic;
  assert.equal(params.kind, 'StateObjectInitIgnored');
  assert.equal(params.path, '/App/StartView/ContentView');
  assert.equal(params.variable, 'viewModel');
  assert.deepEqual(params.ignored, { num: 11 });
  assert.equal(params.version, 4);
  assert.equal(await client.get('/App/StartView/ContentView.viewModel.num'), 10);
});

test('a replay that comes with the watch response reaches listeners attached after the await', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  await client.set('theme.colorScheme', 'dark');
  await client.set('theme.accentColor', 'red');
  const watch = await client.watch({ paths: ['theme'], sinceVersion: 1 });
  const versions = [];
  watch.on('didChange', (params) => versions.push(params.version));
  await once(watch, 'didChange', { signal: AbortSignal.timeout(3000) });
  const live = once(watch, 'didChange', { signal: AbortSignal.timeout(3000) });
  await client.set('theme.fontScale', 2);
  await live;
  assert.deepEqual(versions, [2, 3, 4]);
});

test('the iterator buffers from the start: notifications before iteration begins are kept', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const watch = await client.watch({ paths: ['login.email'] });
  await client.set('login.email', 'a@example.com');
  await client.set('login.email', 'b@example.com');
  const notifications = await take(watch[Symbol.asyncIterator](), 2);
  assert.deepEqual(
    notifications.map((n) => n.params.changes),
    [[{ path: 'login.email', value: 'a@example.com' }], [{ path: 'login.email', value: 'b@example.com' }]],
  );
});

test('each watch of a connection gets its own notifications', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const email = await client.watch({ paths: ['login.email'] });
  const whole = await client.watch({ paths: ['login'] });
  assert.deepEqual([email.id, whole.id], [1, 2]);
  await client.set('login.email', 'kim@example.com');
  const [fromEmail] = await take(email[Symbol.asyncIterator](), 1);
  const [fromWhole] = await take(whole[Symbol.asyncIterator](), 1);
  assert.deepEqual(fromEmail.params, { watch: 1, version: 2, changes: [{ path: 'login.email', value: 'kim@example.com' }] });
  assert.deepEqual(fromWhole.params, {
    watch: 2,
    version: 2,
    changes: [
      { path: 'login.email', value: 'kim@example.com' },
      { path: 'login.isValidEmail', value: true },
    ],
  });
});

test('secure changes arrive redacted', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const watch = await client.watch({ paths: ['login'] });
  await client.set('login.password', 'hunter22');
  const [notification] = await take(watch[Symbol.asyncIterator](), 1);
  assert.deepEqual(notification.params.changes, [{ path: 'login.password', redacted: true }]);
});

test('breaking out of for-await stops iterating but keeps the watch', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const watch = await client.watch({ paths: ['theme.accentColor'] });
  await client.set('theme.accentColor', 'red');
  for await (const notification of watch) {
    assert.equal(notification.params.version, 2);
    break;
  }
  assert.equal(watch.ended, false);
  const next = once(watch, 'didChange', { signal: AbortSignal.timeout(3000) });
  await client.set('theme.accentColor', 'green');
  assert.equal((await next)[0].version, 3);
});

test('unwatch through the watch ends the iterator and emits end', needsDaemon, async (t) => {
  const client = await clientFor(t, await daemonFor(t));
  const watch = await client.watch({ lifecycle: true });
  const iterator = watch[Symbol.asyncIterator]();
  const waiting = iterator.next();
  const ended = once(watch, 'end', { signal: AbortSignal.timeout(3000) });
  await watch.unwatch();
  assert.deepEqual(await waiting, { value: undefined, done: true });
  assert.deepEqual(await ended, [undefined]);
});
