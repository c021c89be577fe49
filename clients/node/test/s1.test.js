// S1 (SPEC §14.1, seed 000) replayed through the client: @StateObject vs an inline @ObservedObject of the
// ObservableObject LoginViewModel (as scenes/s1-login.json), then the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ops } from '../index.js';
import { clientFor, daemonFor, needsDaemon, take } from '../testing/helpers.js';

const LOGIN_BODY = ['email: {loginVM.email}', 'valid: {loginVM.isValidEmail}'];
const CONTAINER = '/App/ContainerView';
const V1 = `${CONTAINER}/LoginView1`;
const V2 = `${CONTAINER}/LoginView2`;

/** The notifications a step must bring, as [method, params] with `watch: 1` left out. */
function expectNotifications(received, expected) {
  assert.deepEqual(
    received.map(({ method, params }) => [method, params]),
    expected.map(([method, params]) => [method, { watch: 1, ...params }]),
  );
}

/** Runs S1 up to the toggle and its reads; returns the client, the watch's iterator and the daemon. */
async function s1(t) {
  const daemon = await daemonFor(t);
  const client = await clientFor(t, daemon);
  const watch = await client.watch({ views: ['/App'], lifecycle: true });
  assert.deepEqual([watch.id, watch.version], [1, 1]);
  const notes = watch[Symbol.asyncIterator]();

  assert.deepEqual(await client.mount({ parent: '/App', name: 'ContainerView', state: { toggle: false }, body: ['toggle: {toggle}'] }), {
    path: CONTAINER,
    body: ['toggle: false'],
    objects: {},
    version: 2,
  });
  expectNotifications(await take(notes, 1), [['view/didMount', { version: 2, path: CONTAINER, reason: 'mounted', body: ['toggle: false'] }]]);

  assert.deepEqual(await client.mount({ parent: CONTAINER, name: 'LoginView1', stateObjects: { loginVM: { type: 'LoginViewModel' } }, body: LOGIN_BODY }), {
    path: V1,
    body: ['email: ', 'valid: false'],
    objects: { loginVM: 'LoginViewModel#4' },
    version: 3,
  });
  expectNotifications(await take(notes, 2), [
    ['object/didCreate', { version: 3, object: 'LoginViewModel#4', type: 'LoginViewModel', owner: `${V1}.loginVM`, reason: 'stateObject' }],
    ['view/didMount', { version: 3, path: V1, reason: 'mounted', body: ['email: ', 'valid: false'] }],
  ]);

  assert.deepEqual(await client.mount({ parent: CONTAINER, name: 'LoginView2', observedObjects: { loginVM: { construct: 'LoginViewModel' } }, body: LOGIN_BODY }), {
    path: V2,
    body: ['email: ', 'valid: false'],
    objects: { loginVM: 'LoginViewModel#5' },
    version: 4,
  });
  expectNotifications(await take(notes, 2), [
    ['object/didCreate', { version: 4, object: 'LoginViewModel#5', type: 'LoginViewModel', owner: `${V2}.loginVM`, reason: 'construct' }],
    ['view/didMount', { version: 4, path: V2, reason: 'mounted', body: ['email: ', 'valid: false'] }],
  ]);

  // Type the email into both: a batch, two transactions.
  assert.deepEqual(
    await client.batch([
      { method: 'graph/set', params: { path: `${V1}.loginVM.email`, value: 'kim@example.com' } },
      { method: 'graph/set', params: { path: `${V2}.loginVM.email`, value: 'kim@example.com' } },
    ]),
    [
      { status: 'fulfilled', value: { version: 5 } },
      { status: 'fulfilled', value: { version: 6 } },
    ],
  );
  // LoginViewModel is an ObservableObject: a @Published write re-renders each holder with _loginVM.
  const typed = ['_loginVM'];
  expectNotifications(await take(notes, 2), [
    ['view/didUpdate', { version: 5, path: V1, reasons: typed, body: ['email: kim@example.com', 'valid: true'] }],
    ['view/didUpdate', { version: 6, path: V2, reasons: typed, body: ['email: kim@example.com', 'valid: true'] }],
  ]);

  // Flip toggle: LoginView2's inline construct makes a new LoginViewModel; LoginView1 is not re-evaluated.
  assert.deepEqual(await client.set(`${CONTAINER}.toggle`, true), { version: 7 });
  expectNotifications(await take(notes, 5), [
    ['graph/didChange', { version: 7, changes: [{ path: `${CONTAINER}.toggle`, value: true }] }],
    ['object/didCreate', { version: 7, object: 'LoginViewModel#6', type: 'LoginViewModel', owner: `${V2}.loginVM`, reason: 'construct' }],
    ['view/didUpdate', { version: 7, path: CONTAINER, reasons: ['_toggle'], body: ['toggle: true'] }],
    ['view/didUpdate', { version: 7, path: V2, reasons: ['@self'], body: ['email: ', 'valid: false'] }],
    ['object/didDestroy', { version: 7, object: 'LoginViewModel#5', type: 'LoginViewModel', owner: `${V2}.loginVM`, reason: 'replaced' }],
  ]);
  assert.equal(await client.get(`${V1}.loginVM.email`), 'kim@example.com');
  assert.deepEqual(await client.get(`${V2}.loginVM`), {
    object: 'LoginViewModel#6',
    type: 'LoginViewModel',
    version: 7,
    owner: `${V2}.loginVM`,
    values: { email: '', isUserLoggedIn: false, isValidEmail: false },
    redacted: ['password'],
  });
  return { client, notes };
}

const UNMOUNT_NOTIFICATIONS = [
  ['view/didUnmount', { version: 8, path: V1, reason: 'parentUnmounted' }],
  ['view/didUnmount', { version: 8, path: V2, reason: 'parentUnmounted' }],
  ['view/didUnmount', { version: 8, path: CONTAINER, reason: 'unmounted' }],
  ['object/didDestroy', { version: 8, object: 'LoginViewModel#4', type: 'LoginViewModel', owner: `${V1}.loginVM`, reason: 'ownerUnmounted' }],
  ['object/didDestroy', { version: 8, object: 'LoginViewModel#6', type: 'LoginViewModel', owner: `${V2}.loginVM`, reason: 'ownerUnmounted' }],
];

test('S1: LoginView1 keeps the email, LoginView2 gets a new LoginViewModel; the fix keeps it in both', needsDaemon, async (t) => {
  const { client, notes } = await s1(t);

  assert.deepEqual(await client.unmount(CONTAINER), { version: 8 });
  // The order within the unmount is checked by the next test; here, that these are all of them.
  const unmounted = await take(notes, 5);
  const key = ([method, params]) => JSON.stringify([method, params]);
  assert.deepEqual(
    unmounted.map(({ method, params }) => key([method, params])).sort(),
    UNMOUNT_NOTIFICATIONS.map(([method, params]) => key([method, { watch: 1, ...params }])).sort(),
  );

  const fixed = { observedObjects: { loginVM: { $parent: 'loginVM' } }, body: LOGIN_BODY };
  const mounted = await client.transaction([
    ops.mount({ parent: '/App', name: 'ContainerView', state: { toggle: false }, stateObjects: { loginVM: { type: 'LoginViewModel' } }, body: ['toggle: {toggle}'] }),
    ops.mount({ parent: CONTAINER, name: 'LoginView1', ...fixed }),
    ops.mount({ parent: CONTAINER, name: 'LoginView2', ...fixed }),
  ]);
  assert.deepEqual(mounted, {
    results: [
      { path: CONTAINER, body: ['toggle: false'], objects: { loginVM: 'LoginViewModel#7' }, version: 9 },
      { path: V1, body: ['email: ', 'valid: false'], objects: { loginVM: 'LoginViewModel#7' }, version: 9 },
      { path: V2, body: ['email: ', 'valid: false'], objects: { loginVM: 'LoginViewModel#7' }, version: 9 },
    ],
    version: 9,
  });
  expectNotifications(await take(notes, 4), [
    ['object/didCreate', { version: 9, object: 'LoginViewModel#7', type: 'LoginViewModel', owner: `${CONTAINER}.loginVM`, reason: 'stateObject' }],
    ['view/didMount', { version: 9, path: CONTAINER, reason: 'mounted', body: ['toggle: false'] }],
    ['view/didMount', { version: 9, path: V1, reason: 'mounted', body: ['email: ', 'valid: false'] }],
    ['view/didMount', { version: 9, path: V2, reason: 'mounted', body: ['email: ', 'valid: false'] }],
  ]);

  assert.deepEqual(await client.set(`${V2}.loginVM.email`, 'kim@example.com'), { version: 10 });
  // ContainerView holds the state object too, so it is re-rendered by its changes as well.
  const typed = ['_loginVM'];
  expectNotifications(await take(notes, 3), [
    ['view/didUpdate', { version: 10, path: CONTAINER, reasons: typed, body: ['toggle: false'] }],
    ['view/didUpdate', { version: 10, path: V1, reasons: typed, body: ['email: kim@example.com', 'valid: true'] }],
    ['view/didUpdate', { version: 10, path: V2, reasons: typed, body: ['email: kim@example.com', 'valid: true'] }],
  ]);

  assert.deepEqual(await client.set(`${CONTAINER}.toggle`, true), { version: 11 });
  expectNotifications(await take(notes, 2), [
    ['graph/didChange', { version: 11, changes: [{ path: `${CONTAINER}.toggle`, value: true }] }],
    ['view/didUpdate', { version: 11, path: CONTAINER, reasons: ['_toggle'], body: ['toggle: true'] }],
  ]);
  const [email1, email2] = await client.batch([
    { method: 'graph/get', params: { path: `${V1}.loginVM.email` } },
    { method: 'graph/get', params: { path: `${V2}.loginVM.email` } },
  ]);
  assert.deepEqual([email1.value, email2.value], ['kim@example.com', 'kim@example.com']);

  // Nothing else came: the next notification is the one this mount causes.
  await client.mount({ parent: '/App', name: 'Sentinel' });
  const [next] = await take(notes, 1);
  assert.deepEqual([next.method, next.params.path, next.params.version], ['view/didMount', '/App/Sentinel', 12]);
});

// SPEC §8.3: view/didUnmount children before parents, siblings in mount order; object/didDestroy
// in creation order.
test('S1: the unmount notifications come in SPEC §8.3 order', { ...needsDaemon }, async (t) => {
  const { client, notes } = await s1(t);
  assert.deepEqual(await client.unmount(CONTAINER), { version: 8 });
  expectNotifications(await take(notes, 5), UNMOUNT_NOTIFICATIONS);
});
